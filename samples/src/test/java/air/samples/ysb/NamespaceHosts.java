package air.samples.ysb;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Several "hosts" on this machine: one network namespace each, with its own address on a private
 * network ({@code 10.231.<net>.0/24}) joined by a bridge in a namespace of its own. Made by the
 * test that uses it (as root, with {@code ip}), and removed by {@link #close}: deleting a namespace
 * removes the veth ends in it. Never touches the machine's own interfaces.
 */
final class NamespaceHosts implements AutoCloseable {

    private final String prefix;
    private final int hosts;
    private final int net;
    private final List<String> made = new ArrayList<>();

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
        try {
            h.build();
        } catch (IOException | RuntimeException e) {
            h.close();
            throw e;
        }
        return h;
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
        IOException first = null;
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
