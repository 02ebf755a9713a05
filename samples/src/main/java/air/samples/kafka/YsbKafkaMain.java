package air.samples.kafka;

import air.kafka.broker.LocalKafkaBroker;
import air.samples.ysb.YsbArgs;
import air.samples.ysb.YsbMain;
import air.workloads.ysb.YsbGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code ysb-kafka N [P] [--partitions K] [--bootstrap HOST:PORT] [ysb options]}: YSB-mem with its
 * events in Kafka. The run's events are produced into a topic of K partitions (default: one per
 * source instance, P times the peers, so that each instance reads one partition, in event-time
 * order), unless the topic holds them already; then the ysb query reads the topic to its end and
 * checks its output against the same reference checksums as {@code ysb}. With no
 * {@code --bootstrap} a broker is started on this machine (Kafka's own, KRaft, in a child JVM on
 * loopback) and removed at the end. Every other option is {@code ysb}'s: {@code --peers},
 * {@code --checkpoints}, {@code --replicas}, {@code --kill}, {@code --out}, ...
 */
public final class YsbKafkaMain {

    private YsbKafkaMain() {
    }

    public static void main(String[] argv) {
        System.exit(execute(argv));
    }

    static int execute(String[] argv) {
        String bootstrap = null;
        Integer partitions = null;
        boolean produceOnly = false;
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if ((a.equals("--bootstrap") || a.equals("--partitions")) && i + 1 >= argv.length) {
                return usage(a + " needs a value");
            }
            switch (a) {
                case "--bootstrap" -> bootstrap = argv[++i];
                case "--partitions" -> {
                    try {
                        partitions = Integer.parseInt(argv[++i]);
                    } catch (NumberFormatException e) {
                        return usage("--partitions must be a whole number, got '" + argv[i] + "'");
                    }
                    if (partitions < 1 || partitions > 10_000) {
                        return usage("--partitions must be 1..10000, got " + partitions);
                    }
                }
                case "--produce-only" -> produceOnly = true;
                case "--kafka", "--topic" -> {
                    return usage(a + " is set by ysb-kafka itself");
                }
                default -> rest.add(a);
            }
        }
        if (YsbCommandHelp.wanted(rest)) {
            System.out.println("usage: ./air ysb-kafka N [P] [--partitions K] [--bootstrap HOST:PORT] [ysb options]");
            System.out.println("  --partitions K        partitions of the events' topic (default: P x peers, one per source instance)");
            System.out.println("  --bootstrap HOST:PORT a running Kafka; without it a local broker is started and removed at the end");
            System.out.println("  --produce-only        put the events into the topic, print the KAFKA line, and stop (benchmarks)");
            System.out.println("ysb options:");
            System.out.print(YsbArgs.usage());
            return 0;
        }
        YsbArgs args;
        try {
            args = YsbArgs.parse(rest.toArray(String[]::new));
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        int k = partitions != null ? partitions : args.parallelism() * Math.max(1, args.peers());
        if (produceOnly && bootstrap == null) {
            return usage("--produce-only needs --bootstrap: a local broker would be gone at the end");
        }
        if (bootstrap != null) {
            return run(bootstrap, k, args, rest, produceOnly);
        }
        try (LocalKafkaBroker broker = LocalKafkaBroker.start()) {
            System.err.println("ysb-kafka: a local Kafka broker at " + broker.bootstrapServers() + " (removed at the end)");
            return run(broker.bootstrapServers(), k, args, rest, false);
        } catch (Exception e) {
            System.err.println("ysb-kafka: cannot start a local Kafka broker: " + e.getMessage());
            return 3;
        }
    }

    private static int run(String bootstrap, int partitions, YsbArgs args, List<String> rest, boolean produceOnly) {
        YsbGenerator generator = new YsbGenerator(args.seed(), args.rate());
        String topic = YsbTopic.name(args.n(), args.seed(), args.rate(), partitions);
        long t0 = System.nanoTime();
        long produced;
        try {
            produced = YsbTopic.ensure(bootstrap, topic, partitions, args.n(), generator);
        } catch (Exception e) {
            System.err.println("ysb-kafka: cannot put the events into " + topic + " at " + bootstrap + ": " + e.getMessage());
            return 3;
        }
        double s = (System.nanoTime() - t0) / 1e9;
        if (produced > 0) {
            System.out.printf(Locale.ROOT, "KAFKA produced=%d topic=%s partitions=%d seconds=%.3f events_per_s=%.0f%n", produced, topic,
                    partitions, s, produced / s);
        } else {
            System.out.printf(Locale.ROOT, "KAFKA topic=%s partitions=%d holds the %d events already%n", topic, partitions, args.n());
        }
        if (produceOnly) {
            return 0;
        }
        List<String> argv = new ArrayList<>(rest);
        argv.addAll(List.of("--kafka", bootstrap, "--topic", topic));
        return YsbMain.execute(argv.toArray(String[]::new));
    }

    private static int usage(String why) {
        System.err.println("ysb-kafka: " + why);
        System.err.println("ysb-kafka: usage: ysb-kafka N [P] [--partitions K] [--bootstrap HOST:PORT] [ysb options]; --help lists them");
        return 2;
    }

    /** Whether {@code --help} or {@code -h} was asked for. */
    private static final class YsbCommandHelp {
        static boolean wanted(List<String> argv) {
            return argv.contains("--help") || argv.contains("-h");
        }
    }
}
