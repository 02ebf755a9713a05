package air.samples.ysb;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Windows;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowResult;
import air.runtime.source.GeneratorSource;
import air.workloads.words.SentenceGenerator;
import air.workloads.ysb.YsbGenerator;
import java.util.Arrays;

/**
 * A windowed word count, the job users write on day one: seeded sentences split into words
 * ({@code flatMap}), keyed by the word itself (object keys, which cross peers as strings) and
 * counted per 10 s tumbling window.
 */
public final class WordCountQuery {

    /** How a word's count becomes a row: the word by its rank in the vocabulary. */
    static final YsbResultSink.RowOf<WindowResult<String, Long>> ROW =
            (r, rows, t) -> rows.add(r.start(), SentenceGenerator.indexOf(r.key()), r.value(), 0, t);

    private WordCountQuery() {
    }

    public static Pipeline build(long n, SentenceGenerator sentences, long offeredRate, long scheduleStartNanos,
                                 SinkFactory<? super WindowResult<String, Long>> sink) {
        GeneratorSource<SentenceGenerator.Sentence> source = new GeneratorSource<>("sentences", n, sentences::sentence);
        Pipeline pipeline = Pipeline.create();
        pipeline.readFrom(offeredRate > 0 ? source.paced(offeredRate, scheduleStartNanos) : source)
                .withTimestamps(SentenceGenerator.Sentence::eventTime, 0)
                .flatMap(s -> Arrays.asList(s.text().split(" ")))
                .keyBy(word -> word)
                .window(Windows.tumbling(YsbGenerator.WINDOW_MS))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        return pipeline;
    }
}
