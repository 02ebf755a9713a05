package air.samples.ysb;

import air.channels.bootstrap.PeerEnvironment;
import air.launcher.PeerHosts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Several "hosts" on this machine: one network namespace each, with its own address on a private
 * network ({@code 10.231.<net>.0/24}) joined by a bridge in a namespace of its own. Made by the
 * test that uses it (as root, with {@code ip}), and removed by {@link #close}: deleting a namespace
 * removes the veth ends in it. Never touches the machine's own interfaces.
 *
 * <p>{@link #withLauncher} also joins this (the root) namespace to the bridge, by a veth pair of its
 * own with the address {@code 10.231.<net>.254} on a /24 no route here uses yet: the launcher's
 * rendezvous and event channel listen there, so that a launcher's {@code LocalCluster} runs its
 * peers one per namespace ({@link PeerHosts}), and {@link #cut} takes a host's switch port down (a
 * pulled cable: the host keeps its address and runs on, but reaches nobody) until {@link #heal}.
 * A shutdown hook removes everything too, should the test's JVM be ended before {@link #close}.
 */
final class NamespaceHosts implements AutoCloseable, PeerHosts {

    private static final int LAUNCHER_HOST = 254;
    private static final Path NET_LOCK = Path.of(System.getProperty("java.io.tmpdir"), "air-namespace-hosts.lock");

    private final String prefix;
    private final int hosts;
    private final int net;
    private final List<String> made = new ArrayList<>();
    /** The root namespace's end of the launcher's link, or null. */
    private String uplink;
    private final Thread onExit = new Thread(this::removeQuietly, "air-namespace-hosts-cleanup");

    private NamespaceHosts(String prefix, int hosts, int net) {
        this.prefix = prefix;
        this.hosts = hosts;
        this.net = net;
    }

    /** Why namespaces cannot be made here, or null when they can (root, and {@code ip netns} works). */
    static String unavailable() {
        try {
            if (!"root".equals(System.getProperty("user.name"))) {
                return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
            }
            String probe = "airprobe" + ProcessHandle.current().pid() % 100_000;
            if (ip("netns", "add", probe) != 0) {
                return "'ip netns add' failed: this machine cannot make network namespaces";
            }
            ip("netns", "del", probe);
            return null;
        } catch (IOException e) {
            return "no 'ip' command: " + e.getMessage();
        }
    }

    /** {@code hosts} namespaces with addresses {@code 10.231.<net>.1 .. hosts}, on one bridge. */
    static NamespaceHosts create(int hosts, int net) throws IOException {
        String prefix = "air" + ProcessHandle.current().pid() % 100_000 + "n" + net;
        NamespaceHosts h = new NamespaceHosts(prefix, hosts, net);
        Runtime.getRuntime().addShutdownHook(h.onExit);
        try {
            h.build();
        } catch (IOException | RuntimeException e) {
            h.close();
            throw e;
        }
        return h;
    }

    /**
     * {@code hosts} namespaces as {@link #create} makes them, on the first {@code 10.231.<net>.0/24}
     * ({@code net} from 100) that no route of this namespace uses, and this namespace joined to their
     * bridge at {@code 10.231.<net>.254}: where a launcher here is reached from every host.
     */
    @SuppressWarnings("try") // the lock is held for the block, never used in it
    static NamespaceHosts withLauncher(int hosts) throws IOException {
        // one process at a time picks a net and claims it with its route: two test JVMs never share one
        try (FileChannel ch = FileChannel.open(NET_LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = ch.lock()) {
            for (int net = 100; net < 250; net++) {
                if (!ipOutput("-4", "route", "show", "10.231." + net + ".0/24").isBlank()
                        || !ipOutput("-4", "addr", "show", "to", "10.231." + net + ".0/24").isBlank()) {
                    continue;
                }
                NamespaceHosts h = create(hosts, net);
                try {
                    h.joinLauncher();
                } catch (IOException | RuntimeException e) {
                    h.close();
                    throw e;
                }
                return h;
            }
            throw new IOException("every net 10.231.100-249.0/24 is in use here");
        }
    }

    private void joinLauncher() throws IOException {
        String sw = prefix + "s";
        String here = prefix + "u"; // at most 15 characters
        String there = prefix + "q";
        must("link", "add", here, "type", "veth", "peer", "name", there, "netns", sw);
        uplink = here;
        must("-n", sw, "link", "set", there, "master", "br0");
        must("-n", sw, "link", "set", there, "up");
        must("addr", "add", launcherAddress().getHostAddress() + "/24", "dev", here);
        must("link", "set", here, "up");
    }

    @Override
    public InetAddress launcherAddress() {
        try {
            return InetAddress.getByName("10.231." + net + "." + LAUNCHER_HOST);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public List<String> command(int rank, List<String> command) {
        return inside(rank, command);
    }

    /** Every peer listens on all of its namespace's interfaces, and tells the others its own address. */
    @Override
    public Map<String, String> environment() {
        return Map.of(PeerEnvironment.BIND, "0.0.0.0");
    }

    /** Takes host {@code rank}'s switch port down: its link has no carrier, nothing gets in or out. */
    @Override
    public void cut(int rank) {
        port(rank, "down");
    }

    @Override
    public void heal(int rank) {
        port(rank, "up");
    }

    private void port(int rank, String state) {
        try {
            must("-n", prefix + "s", "link", "set", prefix + "p" + rank, state);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void build() throws IOException {
        String sw = prefix + "s";
        must("netns", "add", sw);
        made.add(sw);
        must("-n", sw, "link", "add", "br0", "type", "bridge");
        must("-n", sw, "link", "set", "br0", "up");
        for (int i = 0; i < hosts; i++) {
            String ns = namespace(i);
            must("netns", "add", ns);
            made.add(ns);
            String hostEnd = "h" + i;
            String switchEnd = prefix + "p" + i; // at most 15 characters
            must("-n", ns, "link", "set", "lo", "up");
            must("-n", ns, "link", "add", hostEnd, "type", "veth", "peer", "name", switchEnd, "netns", sw);
            must("-n", ns, "addr", "add", address(i) + "/24", "dev", hostEnd);
            must("-n", ns, "link", "set", hostEnd, "up");
            must("-n", sw, "link", "set", switchEnd, "master", "br0");
            must("-n", sw, "link", "set", switchEnd, "up");
        }
    }

    /** The namespaces (and the launcher's link) of this machine whose names start as these hosts' do: none once closed. */
    List<String> leftovers() throws IOException {
        List<String> left = new ArrayList<>();
        for (String line : ipOutput("netns", "list").split("\n")) {
            if (line.startsWith(prefix)) {
                left.add(line.split(" ")[0]);
            }
        }
        if (!ipOutput("link", "show", prefix + "u").isBlank()) {
            left.add(prefix + "u");
        }
        return left;
    }

    String namespace(int host) {
        return prefix + "h" + host;
    }

    String address(int host) {
        return "10.231." + net + "." + (host + 1);
    }

    /** {@code command} run inside host {@code host}'s namespace. */
    List<String> inside(int host, List<String> command) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", namespace(host)));
        c.addAll(command);
        return c;
    }

    @Override
    public void close() throws IOException {
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) anyway
        }
        remove();
    }

    private void removeQuietly() {
        try {
            remove();
        } catch (IOException e) {
            System.err.println("[namespace hosts] " + e.getMessage());
        }
    }

    private synchronized void remove() throws IOException {
        IOException first = null;
        if (uplink != null) {
            // deleting the switch namespace would take the pair down with it; delete it by name first all the same
            ip("link", "del", uplink);
            if (!ipOutput("link", "show", uplink).isBlank()) {
                first = new IOException("could not delete the launcher's link " + uplink);
            }
            uplink = null;
        }
        for (int i = made.size() - 1; i >= 0; i--) {
            if (ip("netns", "del", made.get(i)) != 0 && first == null) {
                first = new IOException("could not delete network namespace " + made.get(i));
            }
        }
        made.clear();
        if (first != null) {
            throw first;
        }
    }

    private static void must(String... args) throws IOException {
        int rc = ip(args);
        if (rc != 0) {
            throw new IOException("'ip " + String.join(" ", args) + "' exited with " + rc);
        }
    }

    /** What {@code ip args} prints (stderr dropped); "" when it fails. */
    private static String ipOutput(String... args) throws IOException {
        List<String> c = new ArrayList<>(List.of("ip"));
        c.addAll(List.of(args));
        Process p = new ProcessBuilder(c).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("'ip " + String.join(" ", args) + "' did not end within 30 s");
            }
            return p.exitValue() == 0 ? out : "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted", e);
        }
    }

    private static int ip(String... args) throws IOException {
        List<String> c = new ArrayList<>(List.of("ip"));
        c.addAll(List.of(args));
        Process p = new ProcessBuilder(c).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("'ip " + String.join(" ", args) + "' did not end within 30 s");
            }
            return p.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted", e);
        }
    }
}
