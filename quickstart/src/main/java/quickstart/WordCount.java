package quickstart;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowResult;
import java.util.Arrays;
import java.util.List;

/** A windowed word count: how often each word occurs per 10-second window of event time. */
public final class WordCount {

    /** A line of text and when it was written (milliseconds of event time). */
    public record Line(long time, String text) { }

    private WordCount() {
    }

    /** The job: lines in, one {@code (window, word) -> count} result per word and window out. */
    public static Pipeline pipeline(List<Line> lines, SinkFactory<? super WindowResult<String, Long>> sink) {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.fromList(lines))
                .withTimestamps(Line::time, 1_000)              // event time; lines may arrive up to 1 s out of order
                .flatMap(line -> Arrays.asList(line.text().toLowerCase().split("\\W+")))
                .filter(word -> !word.isEmpty())
                .keyBy(word -> word)
                .window(Windows.tumbling(10_000))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        return p;
    }

    /** Some lines over 25 seconds. */
    public static List<Line> sample() {
        return List.of(
                new Line(1_000, "the quick brown fox"),
                new Line(3_500, "jumps over the lazy dog"),
                new Line(3_000, "The dog sleeps"),           // 0.5 s behind the newest line: within the allowed disorder
                new Line(12_000, "the fox runs"),
                new Line(19_999, "a dog barks at the fox"),
                new Line(24_000, "quick quick quick"));
    }

    public static void main(String[] args) {
        pipeline(sample(), Sinks.print()).execute(JobConfig.defaults().workers(2));
    }
}
