package air.kafka.broker;

import java.io.IOException;
import java.io.InputStream;
import kafka.Kafka;
import kafka.tools.StorageTool;

/**
 * The child JVM's main: Kafka's own broker ({@code kafka.Kafka}), which also halts as soon as its
 * standard input ends, that is when the JVM that started it is gone, however it went: no broker
 * outlives its tests or its sample. With {@code format ID CONFIG} it formats the data directory.
 */
public final class LocalKafkaBrokerMain {

    private LocalKafkaBrokerMain() {
    }

    /** The first argument that formats a data directory instead: {@code format CLUSTER_ID CONFIG}. */
    static final String FORMAT = "format";

    public static void main(String[] args) {
        if (args.length == 3 && args[0].equals(FORMAT)) {
            System.exit(StorageTool.execute(new String[] {"format", "-t", args[1], "-c", args[2]}, System.out));
        }
        Thread watch = new Thread(() -> {
            InputStream in = System.in;
            try {
                while (in.read() >= 0) {
                    // the parent writes nothing; read until it is gone
                }
            } catch (IOException e) {
                // gone too
            }
            Runtime.getRuntime().halt(3);
        }, "parent-watch");
        watch.setDaemon(true);
        watch.start();
        Kafka.main(args);
    }
}
