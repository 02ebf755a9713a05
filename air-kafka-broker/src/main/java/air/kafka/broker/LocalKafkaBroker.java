package air.kafka.broker;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka broker on this machine, for tests, samples and benchmarks: Kafka's own server ({@code kafka_2.13}), KRaft combined mode
 * (broker and controller in one node, no ZooKeeper), as a child JVM (see {@link #brokerClassPath}),
 * listening on 127.0.0.1 on free ports, its data in a temporary directory. {@link #restart} stops
 * it and starts it again on the same ports and data; {@link #close} kills it and deletes its
 * directory. Its output goes to {@code broker.log} in that directory; a start that fails says why
 * with the log's tail. Start one per test class or run. The system property {@code air.kafka.keepBrokerDir=true}
 * (or the environment variable {@code AIR_KAFKA_KEEP_BROKER_DIR=true}) keeps the directory, log
 * included, for a look after the tests.
 */
public final class LocalKafkaBroker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalKafkaBroker.class);

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);
    private static final int LOG_TAIL_LINES = 40;
    private static final String CLASS_PATH_RESOURCE = "broker.classpath";

    private final Path dir;
    private final Path config;
    private final Path log;
    private final int port;
    private final Thread killOnExit;
    private Process process;

    private LocalKafkaBroker(Path dir, int port, int controllerPort) throws IOException {
        this.dir = dir;
        this.port = port;
        this.config = dir.resolve("server.properties");
        this.log = dir.resolve("broker.log");
        Files.writeString(config, String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + dir.resolve("data"),
                "num.partitions=1",
                "auto.create.topics.enable=false",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                // one partition for the transactions' log (default 50): the first transactional producer starts sooner
                "transaction.state.log.num.partitions=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                // a restarted node registers anew only once its earlier registration's session ended: keep that short
                "broker.session.timeout.ms=2000",
                "broker.heartbeat.interval.ms=200",
                "num.network.threads=2",
                "num.io.threads=2",
                "background.threads=2",
                "log.cleaner.enable=false",
                "") + "\n");
        this.killOnExit = new Thread(this::kill, "kafka-broker-kill");
    }

    /** Formats a fresh directory and starts the broker; returns once it answers. */
    public static LocalKafkaBroker start() throws IOException {
        Path dir = Files.createTempDirectory("air-kafka-");
        Files.writeString(dir.resolve("broker.log"), "");
        LocalKafkaBroker broker = null;
        try {
            int[] ports = freePorts(2);
            broker = new LocalKafkaBroker(dir, ports[0], ports[1]);
            broker.format();
            Runtime.getRuntime().addShutdownHook(broker.killOnExit);
            broker.launch();
            return broker;
        } catch (IOException | RuntimeException | Error e) {
            if (broker != null) {
                broker.close();
            } else {
                deleteTree(dir);
            }
            throw e;
        }
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** The broker's process id (the child JVM's). */
    public long pid() {
        Process p = process;
        if (p == null) {
            throw new IllegalStateException("the broker is not running");
        }
        return p.pid();
    }

    public Path directory() {
        return dir;
    }

    /** Creates a topic (replication factor 1) and returns once every partition has a leader that holds its log. */
    public void createTopic(String name, int partitions) {
        changeTopic("cannot create topic " + name, name, partitions,
                admin -> admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all());
    }

    /** Raises {@code topic}'s partitions to {@code total} and returns once every one has a leader that holds its log. */
    public void addPartitions(String topic, int total) {
        changeTopic("cannot add partitions to " + topic, topic, total,
                admin -> admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(total))).all());
    }

    /** Runs one topic change and waits for its {@code partitions} to be ready; a failure says {@code what} with the broker's log. */
    private void changeTopic(String what, String topic, int partitions, Function<Admin, KafkaFuture<Void>> change) {
        try (Admin admin = admin()) {
            change.apply(admin).get(30, TimeUnit.SECONDS);
            awaitPartitions(admin, topic, partitions);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(what + ": " + e + "\n" + logTail(), e);
        }
    }

    private static void awaitPartitions(Admin admin, String name, int partitions)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            TopicDescription d = null;
            try {
                d = admin.describeTopics(List.of(name)).allTopicNames().get(10, TimeUnit.SECONDS).get(name);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                } // created, but not yet in the metadata the broker answers from: ask again
            }
            if (d != null && d.partitions().size() == partitions
                    && d.partitions().stream().map(TopicPartitionInfo::leader).allMatch(l -> l != null)
                    && logsAnswer(admin, name, partitions)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("topic " + name + " has partitions without a leader after 30 s: " + d);
            }
            Thread.sleep(10);
        }
    }

    /**
     * Whether the leader of every partition of {@code topic} already has its log: the metadata can
     * name a leader before the partition exists on it, and a produce sent then meets
     * NOT_LEADER_OR_FOLLOWER (with several idempotent batches in flight, then OUT_OF_ORDER_SEQUENCE_NUMBER
     * until the delivery timeout; seen in CI as a producer's flush hanging).
     */
    private static boolean logsAnswer(Admin admin, String topic, int partitions) throws InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        try {
            admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RetriableException) {
                return false;
            }
            throw new IllegalStateException("cannot read the end offsets of " + topic + ": " + e.getCause(), e);
        }
    }

    /**
     * Writes {@code records} and returns once the broker has acknowledged every one of them (acks=all,
     * one request in flight, a 30 s delivery timeout), or fails naming the first record that was not
     * written. For tests and samples that need their input complete before a job reads it.
     */
    public void send(List<ProducerRecord<String, String>> records, Map<String, Object> producerProperties) {
        Map<String, Object> p = new HashMap<>(producerProperties);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) SEND_TIMEOUT.toMillis());
        p.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) SEND_TIMEOUT.toMillis() / 2);
        List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (ProducerRecord<String, String> r : records) {
                sent.add(producer.send(r));
            }
            producer.flush();
            for (int i = 0; i < sent.size(); i++) {
                try {
                    sent.get(i).get(SEND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    throw new IllegalStateException("record " + i + " of " + sent.size() + " (" + records.get(i) + ") was not written: " + e
                            + "\n" + logTail(), e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing to the broker", e);
        }
    }

    /** Stops the broker (as an operator would: SIGTERM, a controlled shutdown) and starts it again on the same ports and data. */
    public void restart() throws IOException {
        stop();
        launch();
    }

    /** Starts a {@linkplain #stop stopped} broker again, on the same ports and data; returns once it answers. */
    public void startAgain() throws IOException {
        if (process != null) {
            throw new IllegalStateException("the broker is running");
        }
        launch();
    }

    /** Stops the broker, gracefully (killed when it takes longer than 30 s). */
    public void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        long t0 = System.nanoTime();
        p.destroy();
        try {
            if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
        process = null;
        LOG.info("Kafka broker at {} stopped in {} ms", bootstrapServers(), (System.nanoTime() - t0) / 1_000_000);
    }

    /** Kills the broker (by its process id, waiting for it) and deletes its directory. */
    @Override
    public void close() {
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // the JVM is exiting already, or the hook was never added
        }
        if (Boolean.getBoolean("air.kafka.keepBrokerDir") || "true".equals(System.getenv("AIR_KAFKA_KEEP_BROKER_DIR"))) {
            LOG.info("Kafka broker's directory kept: {}", dir);
            return;
        }
        try {
            deleteTree(dir);
        } catch (IOException e) {
            System.err.println("LocalKafkaBroker: cannot delete " + dir + ": " + e);
        }
    }

    private void kill() {
        Process p = process;
        if (p == null) {
            return;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(p.pid());
        handle.ifPresent(ProcessHandle::destroyForcibly);
        try {
            p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /** Formats the data directory (Kafka's {@code kafka-storage format}), in a child JVM like the broker's. */
    private void format() throws IOException {
        Process p = new ProcessBuilder(javaCommand(LocalKafkaBrokerMain.FORMAT, Uuid.randomUuid().toString(), config.toString()))
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            if (!p.waitFor(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("kafka-storage format took longer than " + START_TIMEOUT.toSeconds() + " s:\n" + logTail());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted while formatting the Kafka broker's directory", e);
        }
        if (p.exitValue() != 0) {
            throw new IOException("kafka-storage format exited with " + p.exitValue() + ":\n" + logTail());
        }
    }

    /** The command line of a child JVM running {@link LocalKafkaBrokerMain} with {@code args}, its class path in an argument file. */
    private List<String> javaCommand(String... args) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path argFile = dir.resolve("jvm.args");
        Files.writeString(argFile, "-cp\n\"" + brokerClassPath().replace("\\", "\\\\") + "\"\n");
        List<String> command = new ArrayList<>(List.of(java.toString(), "@" + argFile, "-Xms128m", "-Xmx512m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                LocalKafkaBrokerMain.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /**
     * Where the child finds Kafka's broker: this module's own classes and the jars Maven resolved
     * for it when it was built ({@value #CLASS_PATH_RESOURCE}, written by the build), so that an
     * application or a fat jar that holds only the client side can still start a broker.
     */
    static String brokerClassPath() throws IOException {
        StringBuilder cp = new StringBuilder();
        try {
            cp.append(Path.of(LocalKafkaBroker.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
        } catch (URISyntaxException | RuntimeException e) {
            throw new IOException("cannot tell where " + LocalKafkaBroker.class.getName() + " was loaded from: " + e, e);
        }
        try (InputStream in = LocalKafkaBroker.class.getResourceAsStream(CLASS_PATH_RESOURCE)) {
            if (in == null) {
                throw new IOException("no " + CLASS_PATH_RESOURCE + " beside " + LocalKafkaBroker.class.getName() + ": build air-kafka-broker "
                        + "with Maven (it lists the broker's jars there)");
            }
            String jars = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            for (String jar : jars.split(File.pathSeparator)) {
                if (!jar.isBlank() && !Files.isRegularFile(Path.of(jar))) {
                    throw new IOException("the Kafka broker's jar " + jar + " is missing (listed when air-kafka-broker was built); "
                            + "build it again (./air build)");
                }
            }
            cp.append(File.pathSeparator).append(jars);
        }
        return cp.toString();
    }

    private void launch() throws IOException {
        List<String> command = javaCommand(config.toString());
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Files.writeString(log, "---- starting " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        long t0 = System.nanoTime();
        process = pb.start();
        awaitReady();
        LOG.info("Kafka broker at {} (pid {}) answers after {} ms", bootstrapServers(), process.pid(), (System.nanoTime() - t0) / 1_000_000);
    }

    /** Polls the broker with a deadline until it lists itself; fails, with the log's tail, when it dies or the deadline passes. */
    private void awaitReady() throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Exception last = null;
        try (Admin admin = admin()) {
            while (System.nanoTime() < deadline) {
                if (process.waitFor(100, TimeUnit.MILLISECONDS)) {
                    int rc = process.exitValue();
                    process = null;
                    throw new IOException("the Kafka broker exited with " + rc + " while starting:\n" + logTail());
                }
                try {
                    if (!admin.describeCluster(new DescribeClusterOptions().timeoutMs(2_000)).nodes().get(3, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    last = e;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
            throw new IOException("interrupted while the Kafka broker started", e);
        }
        kill();
        throw new IOException("the Kafka broker did not answer within " + START_TIMEOUT.toSeconds() + " s (last: " + last + "):\n" + logTail());
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
    }

    /** The last lines of the broker's output. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "---- " + log + " (last " + Math.min(LOG_TAIL_LINES, lines.size()) + " lines)\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(no broker log: " + e + ")";
        }
    }

    private static int[] freePorts(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
