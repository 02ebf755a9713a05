package air.kafka;

import java.io.IOException;
import java.io.InputStream;
import kafka.Kafka;

/**
 * The child JVM's main: Kafka's own broker ({@code kafka.Kafka}), which also halts as soon as its
 * standard input ends, that is when the test JVM that started it is gone, however it went: no
 * broker outlives its tests.
 */
public final class KafkaBrokerMain {

    private KafkaBrokerMain() {
    }

    public static void main(String[] args) {
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
