package air.benchmarks;

import air.kafka.broker.LocalKafkaBroker;
import java.io.IOException;

/**
 * A local Kafka broker for a benchmark script: prints {@code BOOTSTRAP host:port} once it answers,
 * then keeps it until its standard input ends (the script closes it, or is gone), and removes it.
 */
public final class LocalBroker {

    private LocalBroker() {
    }

    public static void main(String[] args) throws IOException {
        try (LocalKafkaBroker broker = LocalKafkaBroker.start()) {
            System.out.println("BOOTSTRAP " + broker.bootstrapServers());
            System.out.flush();
            while (System.in.read() >= 0) {
                // the script writes nothing; read until it closes the pipe
            }
        }
    }
}
