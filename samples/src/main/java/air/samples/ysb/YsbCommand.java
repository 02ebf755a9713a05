package air.samples.ysb;

import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/**
 * The {@code ysb} command line on picocli: {@code --opt value} and {@code --opt=value}, every
 * range checked where the option is parsed (a bad value is a usage error naming the option, never
 * a failed job), {@code --help}. {@link #parse} turns it into {@link YsbArgs}.
 */
@Command(name = "ysb", sortOptions = false, usageHelpWidth = 120,
        description = "YSB-mem (docs/ysb-mem.md) and the other queries over its events: runs the job, writes the canonical output, "
                + "prints the RESULT line and checks it. Exit codes: 0 ok, 1 output check failed, 2 usage, 3 job failed, "
                + "4 environment missing.")
final class YsbCommand {

    /** The most events a run may ask for: far beyond any run's length, and far from where a strided index overflows. */
    static final long MAX_EVENTS = 1_000_000_000_000_000L;
    /** Records per batch: the engine's own bound. */
    static final int MAX_BATCH = 1 << 20;

    @Parameters(index = "0", paramLabel = "N", converter = Events.class,
            description = "events, with an optional K/M/G suffix (5M = 5000000), at most 10^15")
    long n;

    @Parameters(index = "1", arity = "0..1", paramLabel = "P", converter = Workers.class,
            description = "workers per JVM (default: all available processors), 1..4096")
    Integer p;

    @Option(names = "--seed", paramLabel = "S", converter = Int64.class, description = "64-bit seed (default 42)")
    long seed = 42;

    @Option(names = "--rate", paramLabel = "R", converter = PositiveCount.class,
            description = "events per logical second (default 100000; 1000 for --query sessions)")
    Long rate;

    @Option(names = "--gap", paramLabel = "G", converter = Gap.class,
            description = "with --query sessions: the session gap in ms, 2..86400000 (default 2000)")
    Long gap;

    @Option(names = "--offered", paramLabel = "L", converter = Count.class,
            description = "events per wall second; 0 = throughput mode (default); sets R = L")
    long offered;

    @Option(names = "--out", paramLabel = "FILE", description = "canonical output file (default out/QUERY-N.csv)")
    Path out;

    @Option(names = "--routing", paramLabel = "AIR|KEY", converter = RoutingOf.class,
            description = "AIR (partials routed by window) or KEY (by key hash, default)")
    Routing routing = Routing.KEY;

    @Option(names = "--progress", paramLabel = "MODE", converter = ProgressOf.class,
            description = "watermark (default) or hewmeld (exact credit per epoch)")
    Progress progress = Progress.WATERMARK;

    @Option(names = "--watermark-ms", paramLabel = "MS", converter = Count.class,
            description = "watermark period under --progress watermark (default 200; 0 = every batch)")
    long watermarkMs = 200;

    @Option(names = "--batch", paramLabel = "B", converter = Batch.class, description = "records per batch, 1..1048576 (default 1024)")
    int batch = 1024;

    @Option(names = "--peers", paramLabel = "K", converter = Peers.class,
            description = "run as K peer JVMs on this machine (P workers each; default 1), 1..256")
    int peers = 1;

    @Option(names = "--checkpoints", paramLabel = "DIR", description = "checkpointing and rollback: state to DIR; a rerun resumes")
    Path checkpoints;

    @Option(names = "--savepoint", paramLabel = "DIR", description = "stop with a savepoint in DIR after --stop-after T (checkpoints "
            + "go to DIR as with --checkpoints); a later run with --checkpoints DIR resumes it, with any --peers and P")
    Path savepoint;

    @Option(names = "--stop-after", paramLabel = "T", converter = Millis.class,
            description = "with --savepoint: when to stop, e.g. 5s (the run exits with status 6, STOPPED, once every peer wrote it)")
    Long stopAfterMs;

    @Option(names = "--checkpoint-interval", paramLabel = "T", converter = Millis.class,
            description = "how often, e.g. 1s or 500ms (default 1s; with --replicas: how often state is copied)")
    Long intervalMs;

    @Option(names = "--replicas", paramLabel = "K", converter = Replicas.class,
            description = "replication: each peer's state also on its next K peers (TCP transport), 1..16")
    int replicas;

    @Option(names = "--full-checkpoint-every", paramLabel = "N", converter = FullEvery.class,
            description = "with --checkpoints or --replicas: one snapshot in N holds whole state, the others only what changed "
                    + "since the one before (default 8; 1: every one whole), 1..1000")
    Integer fullEvery;

    @Option(names = "--kill", paramLabel = "N", converter = Kills.class,
            description = "with --peers and --checkpoints or --replicas: kill -9 a random peer N times (1..1000), check the output")
    int kills;

    @Option(names = "--kill-seed", paramLabel = "S", converter = Int64.class, description = "seed of the kills' victims and moments (default 1)")
    long killSeed = 1;

    @Option(names = "--query", paramLabel = "Q", converter = QueryOf.class,
            description = "ysb (default), ysbm (clicks and views joined per campaign and window), wa (every event per window, "
                    + "unkeyed), wordcount (N seeded sentences), enrich (views joined with campaign names from a changelog), "
                    + "users (every event per window and user id mod 2^20: large state), sessions (every event per session "
                    + "of its ad, --gap), process (ysb as a keyed process function with map state and event-time timers: "
                    + "the same output)")
    YsbArgs.Query query = YsbArgs.Query.YSB;

    @Option(names = "--kafka", paramLabel = "HOST:PORT", description = "read the events from Kafka at HOST:PORT, topic --topic "
            + "(ysb query only; ./air ysb-kafka produces the topic first)")
    String kafka;

    @Option(names = "--topic", paramLabel = "T", description = "with --kafka: the topic the events are in")
    String topic;

    @Option(names = "--quiet", description = "no live progress line")
    boolean quiet;

    @Option(names = "--fresh", description = "with --checkpoints: start afresh on purpose — discard this job's checkpoints and earlier "
            + "part files instead of refusing to start over them (another pipeline under this job name, or checkpoints an older AIR "
            + "wrote); an edited pipeline resumes what still matches, and another --peers or P resumes onto the new layout, "
            + "without it")
    boolean fresh;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text, exit 0")
    boolean help;

    private YsbCommand() {
    }

    private static CommandLine commandLine(YsbCommand command) {
        return new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).setOverwrittenOptionsAllowed(true);
    }

    static String usage() {
        return commandLine(new YsbCommand()).getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    /** Whether {@code args} ask for the usage text (picocli's {@code -h}/{@code --help}, anywhere on the line). */
    static boolean wantsHelp(String... args) {
        YsbCommand c = new YsbCommand();
        try {
            commandLine(c).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            return c.help;
        }
        return c.help;
    }

    static YsbArgs parse(String... args) {
        YsbCommand c = new YsbCommand();
        try {
            commandLine(c).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (c.gap != null && c.query != YsbArgs.Query.SESSIONS) {
            throw new IllegalArgumentException("--gap applies to the sessions query only (./air sessions, --query sessions), not "
                    + c.query.cliName());
        }
        long rate = c.rate != null ? c.rate : c.query == YsbArgs.Query.SESSIONS ? SessionsQuery.DEFAULT_RATE : 100_000;
        if (c.offered > 0) {
            rate = c.offered;
        }
        long gapMs = c.query == YsbArgs.Query.SESSIONS ? (c.gap != null ? c.gap : SessionsQuery.DEFAULT_GAP_MS) : 0;
        YsbFaults faults = YsbFaults.NONE;
        if (c.savepoint != null) {
            if (c.checkpoints != null && !c.checkpoints.equals(c.savepoint)) {
                throw new IllegalArgumentException("--savepoint DIR writes its checkpoints to DIR: give --checkpoints the same directory, "
                        + "or leave it out");
            }
            if (c.stopAfterMs == null) {
                throw new IllegalArgumentException("--savepoint DIR needs --stop-after T: when to stop, e.g. --stop-after 5s");
            }
            faults = faults.withCheckpoints(c.savepoint).withStopAfter(c.stopAfterMs);
        } else if (c.stopAfterMs != null) {
            throw new IllegalArgumentException("--stop-after needs --savepoint DIR: where the run stops");
        }
        if (c.checkpoints != null) {
            faults = faults.withCheckpoints(c.checkpoints);
        }
        if (c.intervalMs != null) {
            faults = faults.withInterval(c.intervalMs);
        }
        if (c.replicas > 0) {
            faults = faults.withReplicas(c.replicas);
        }
        if (c.kills > 0) {
            faults = faults.withKills(c.kills);
        }
        faults = faults.withKillSeed(c.killSeed);
        if (c.fullEvery != null) {
            if (c.checkpoints == null && c.replicas == 0) {
                throw new IllegalArgumentException("--full-checkpoint-every needs --checkpoints DIR or --replicas K");
            }
            faults = faults.withFullEvery(c.fullEvery);
        }
        YsbArgs.KafkaInput kafka = null;
        if (c.kafka != null || c.topic != null) {
            if (c.kafka == null || c.topic == null || c.kafka.isBlank() || c.topic.isBlank()) {
                throw new IllegalArgumentException("--kafka HOST:PORT and --topic T go together");
            }
            if (c.query != YsbArgs.Query.YSB) {
                throw new IllegalArgumentException("--kafka reads the events of the ysb query only, not --query " + c.query.cliName());
            }
            kafka = new YsbArgs.KafkaInput(c.kafka, c.topic);
        }
        int workers = c.p != null ? c.p : Runtime.getRuntime().availableProcessors();
        Path out = c.out != null ? c.out : Path.of("out", c.query.cliName() + "-" + c.n + ".csv");
        return new YsbArgs(c.n, workers, c.seed, rate, c.offered, out, c.quiet, c.batch, c.routing, c.progress, c.watermarkMs, c.peers,
                faults.validated(c.peers), c.query, c.fresh, gapMs, kafka);
    }

    // ---- converters: the message says what is wrong; picocli prefixes which option or parameter it was

    static long count(String text) {
        try {
            return YsbArgs.parseCount("", text);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("must be a non-negative count like 5M, got '" + text + "'");
        }
    }

    static long inRange(String text, long min, long max) {
        long v = count(text);
        if (v < min || v > max) {
            throw new TypeConversionException("must be in [" + min + ", " + max + "], got " + text);
        }
        return v;
    }

    static final class Count implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return count(text);
        }
    }

    static final class PositiveCount implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return inRange(text, 1, Long.MAX_VALUE);
        }
    }

    static final class Events implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return inRange(text, 0, MAX_EVENTS);
        }
    }

    static final class Gap implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return inRange(text, 2, 86_400_000);
        }
    }

    static final class Workers implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            return (int) inRange(text, 1, 4096);
        }
    }

    static final class Batch implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            return (int) inRange(text, 1, MAX_BATCH);
        }
    }

    static final class Peers implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            return (int) inRange(text, 1, 256);
        }
    }

    static final class Replicas implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            return (int) inRange(text, 1, 16);
        }
    }

    static final class FullEvery implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            return (int) inRange(text, 1, 1000);
        }
    }

    static final class Kills implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            return (int) inRange(text, 1, 1000);
        }
    }

    static final class Int64 implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new TypeConversionException("must be a 64-bit integer, got '" + text + "'");
            }
        }
    }

    static final class Millis implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            try {
                return YsbFaults.parseMillis("", text);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("must be a positive duration like 1s or 500ms, got '" + text + "'");
            }
        }
    }

    static final class RoutingOf implements ITypeConverter<Routing> {
        @Override
        public Routing convert(String text) {
            try {
                return Routing.valueOf(text.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("must be AIR or KEY, got '" + text + "'");
            }
        }
    }

    static final class ProgressOf implements ITypeConverter<Progress> {
        @Override
        public Progress convert(String text) {
            try {
                return Progress.valueOf(text.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("must be hewmeld or watermark, got '" + text + "'");
            }
        }
    }

    static final class QueryOf implements ITypeConverter<YsbArgs.Query> {
        @Override
        public YsbArgs.Query convert(String text) {
            try {
                return YsbArgs.Query.valueOf(text.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("must be ysb, ysbm, wa, wordcount, enrich, users, sessions or process, got '" + text + "'");
            }
        }
    }
}
