package air.replication.replica;

import static air.replication.replica.FoldingTest.changes;
import static air.replication.replica.FoldingTest.states;
import static air.replication.replica.FoldingTest.whole;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.Channels;
import air.channels.Frame;
import air.channels.InJvmTransports;
import air.channels.MeshAuth;
import air.channels.Transport;
import air.runtime.impl.checkpoint.PartSections;
import air.runtime.impl.checkpoint.SavedState;
import air.runtime.impl.cluster.ClusterSession;
import air.wire.WireIn;
import air.wire.WireOut;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Replicas receive changes: three peers in one JVM, each with a cluster session over in-JVM
 * transports. Peers 0 and 1 run a {@link ReplicaService}; peer 2 is played by hand (it reads and
 * writes the replica channel itself), so that a test sees which kind of PUT went where and can
 * miss a checkpoint, ask for the whole copy, cut its copies into chunks as it likes or send garbage.
 * A replica keeps each sender's chain as it arrived and folds it only when a copy is read; a sender
 * keeps no copy, so a target that lacks the checkpoint before fails the write of changes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReplicaServiceTest {

    private static final long JOB = 7;
    private static final String KEY = "job";
    /** The longest chain a replica holds in these tests (the job's fullCheckpointEvery). */
    private static final int MAX_CHAIN = 8;
    /** Peer 0's part (block 0 with one worker), and peer 2's. */
    private static final String PART0 = "v0/0", PART2 = "v0/2";

    private final List<ClusterSession> sessions = new ArrayList<>();
    private final List<ReplicaService> services = new ArrayList<>();
    /** What peer 1's service reported as failing the job. */
    private final BlockingQueue<Throwable> failed1 = new LinkedBlockingQueue<>();
    private ExecutorService writer;

    @BeforeEach
    void cluster() throws Exception {
        List<Transport> network = InJvmTransports.network(3);
        ExecutorService meet = Executors.newFixedThreadPool(3);
        try {
            List<Future<ClusterSession>> joining = new ArrayList<>();
            for (Transport t : network) {
                joining.add(meet.submit(() -> new ClusterSession(t, 50, 10_000, 20_000, null,
                        InetAddress.getLoopbackAddress().getHostAddress(), MeshAuth.NONE)));
            }
            for (Future<ClusterSession> s : joining) {
                sessions.add(s.get(30, TimeUnit.SECONDS));
            }
        } finally {
            meet.shutdownNow();
        }
        writer = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void close() {
        writer.shutdownNow();
        services.forEach(ReplicaService::close);
        sessions.forEach(ClusterSession::close);
    }

    /** Peer 0's service, replicating to its next {@code replicas} peers (1, then 2), waiting {@code ackTimeoutMs} for acknowledgements. */
    private ReplicaService sender(int replicas, long ackTimeoutMs) {
        return sender(replicas, ackTimeoutMs, Chunks.DEFAULT_BYTES);
    }

    /** Peer 0's service, cutting its copies into chunks of {@code chunkBytes}. */
    private ReplicaService sender(int replicas, long ackTimeoutMs, int chunkBytes) {
        ReplicaService s = new ReplicaService(sessions.get(0), JOB, replicas, 1, MAX_CHAIN, new BarrierDelivery(sessions.get(0)), e -> { },
                ackTimeoutMs, chunkBytes);
        services.add(s);
        return s;
    }

    /** Peer 1's service: it only holds copies (three, as with two replicas). */
    private ReplicaService receiver() {
        return receiver(MAX_CHAIN);
    }

    /** Peer 1's service, holding chains of at most {@code maxChain} checkpoints. */
    private ReplicaService receiver(int maxChain) {
        return receiver(2, maxChain);
    }

    /** Peer 1's service in a job of {@code replicas} replicas (one: it keeps one committed copy per sender). */
    private ReplicaService receiver(int replicas, int maxChain) {
        ReplicaService s = new ReplicaService(sessions.get(1), JOB, replicas, 1, maxChain, new BarrierDelivery(sessions.get(1)),
                failed1::add);
        services.add(s);
        return s;
    }

    /** Checkpoint {@code id} written by {@code sender} on a thread of its own: it returns once its targets acknowledged it. */
    private Future<Void> write(ReplicaService sender, long id, long base, Map<String, byte[]> parts) {
        return writer.submit(() -> {
            sender.write(KEY, id, base, 0, 3, parts);
            return null;
        });
    }

    /** A PUT as peer 2 reads it, gathered from its {@code chunks}. */
    record Put(int from, long id, int mode, Map<String, byte[]> parts, int chunks) {
    }

    /** One chunk of a PUT as peer 2 reads it. */
    record Chunk(int from, long id, int mode, int index, int count, byte[] data) {
    }

    /** An ACK as peer 2 reads it. */
    record Ack(int from, long id, int status) {
    }

    /** The next message of {@code kind} to peer 2 (REPLICATED notes are skipped). */
    private WireIn next(int kind) throws InterruptedException {
        while (true) {
            Frame f = sessions.get(2).transport().receive(Channels.REPLICA, Duration.ofSeconds(20));
            assertThat(f).as("a replica message to peer 2").isNotNull();
            WireIn in = new WireIn(f.payload(), f.peer());
            int k = in.getByte();
            assertThat(in.getLong()).isEqualTo(JOB);
            in.getLong(); // the sender's view
            if (k == kind) {
                return in;
            }
            assertThat(k).as("a message to peer 2 other than a PUT, ACK or COMMIT").isEqualTo(ReplicaService.REPLICATED);
        }
    }

    private Chunk nextChunk() throws InterruptedException {
        WireIn in = next(ReplicaService.PUT);
        Chunk c = new Chunk(in.peer(), in.getLong(), in.getByte(), in.getInt(), in.getInt(), in.getBytes());
        assertThat(in.remaining()).as("bytes after a chunk's data").isZero();
        return c;
    }

    /** The next PUT to peer 2, its chunks gathered: they come in order, none of another copy between them. */
    private Put nextPut() throws InterruptedException {
        Chunk first = nextChunk();
        assertThat(first.index()).isZero();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(first.data());
        for (int i = 1; i < first.count(); i++) {
            Chunk c = nextChunk();
            assertThat(c).as("chunk %d of %d", i, first.count()).isEqualTo(new Chunk(first.from(), first.id(), first.mode(), i, first.count(),
                    c.data()));
            body.writeBytes(c.data());
        }
        WireIn in = new WireIn(ByteBuffer.wrap(body.toByteArray()), first.from());
        for (int n = in.getInt(); n > 0; n--) {
            in.getInt();
        }
        Map<String, byte[]> parts = new HashMap<>();
        for (int n = in.getInt(); n > 0; n--) {
            parts.put(in.getString(), in.getBytes());
        }
        assertThat(in.remaining()).as("bytes after a copy's parts").isZero();
        return new Put(first.from(), first.id(), first.mode(), parts, first.count());
    }

    private Ack nextAck() throws InterruptedException {
        WireIn in = next(ReplicaService.ACK);
        return new Ack(in.peer(), in.getLong(), in.getByte());
    }

    /** Peer 2 answers peer 0's PUT (or COMMIT) of checkpoint {@code id}. */
    private void ack(long id, int status) {
        WireOut out = new WireOut(32);
        out.putByte(ReplicaService.ACK).putLong(JOB).putLong(sessions.get(2).view().epoch()).putLong(id).putByte(status);
        sessions.get(2).transport().send(0, Channels.REPLICA, out.buffer());
    }

    /** Peer 2 holds peer 0's checkpoint {@code id}: it acknowledges the PUT, then answers the COMMIT that follows. */
    private void held(long id) throws InterruptedException {
        ack(id, ReplicaService.HELD);
        assertThat(next(ReplicaService.COMMIT).getLong()).as("the commit of checkpoint %d", id).isEqualTo(id);
        ack(id, ReplicaService.COMMITTED);
    }

    /** Peer 2 commits its checkpoint {@code id} on peer 1. */
    private void sendCommit(long id) {
        WireOut out = new WireOut(32);
        out.putByte(ReplicaService.COMMIT).putLong(JOB).putLong(sessions.get(2).view().epoch()).putLong(id);
        sessions.get(2).transport().send(1, Channels.REPLICA, out.buffer());
    }

    /** Peer 2 commits its checkpoint {@code id} on peer 1, which answers that it did. */
    private void commit(long id) throws InterruptedException {
        sendCommit(id);
        assertThat(nextAck()).isEqualTo(new Ack(1, id, ReplicaService.COMMITTED));
    }

    /** Peer 1 acknowledged peer 2's copy of checkpoint {@code id} as held, and peer 2 commits it. */
    private void committed(long id) throws InterruptedException {
        assertThat(nextAck()).isEqualTo(new Ack(1, id, ReplicaService.HELD));
        commit(id);
    }

    /** Peer 2 sends peer 1 its part of checkpoint {@code id} (block 2): whole or changes, in one chunk. */
    private void put(long id, int mode, byte[] part) {
        chunk(id, mode, 0, 1, body(part));
    }

    /** Peer 2 sends peer 1 its part of checkpoint {@code id} in {@code count} chunks. */
    private void put(long id, int mode, byte[] part, int count) {
        byte[][] chunks = cut(body(part), count);
        for (int i = 0; i < count; i++) {
            chunk(id, mode, i, count, chunks[i]);
        }
    }

    /** The body of a copy of peer 2's part: block 2, then the part. */
    private static byte[] body(byte[] part) {
        return FoldingTest.bytes(new WireOut(32 + part.length).putInt(1).putInt(2).putInt(1).putString(PART2).putBytes(part));
    }

    /** {@code body} cut into {@code count} pieces, none empty. */
    private static byte[][] cut(byte[] body, int count) {
        byte[][] pieces = new byte[count][];
        for (int i = 0; i < count; i++) {
            pieces[i] = Arrays.copyOfRange(body, i * body.length / count, (i + 1) * body.length / count);
        }
        return pieces;
    }

    /** Peer 2 sends peer 1 chunk {@code index} of {@code count} of its copy of checkpoint {@code id}. */
    private void chunk(long id, int mode, int index, int count, byte[] data) {
        chunk(id, mode, index, count, data.length, data);
    }

    /** As {@link #chunk(long, int, int, int, byte[])}, its header announcing {@code announced} data bytes. */
    private void chunk(long id, int mode, int index, int count, int announced, byte[] data) {
        WireOut out = new WireOut(64 + data.length);
        out.putByte(ReplicaService.PUT).putLong(JOB).putLong(sessions.get(2).view().epoch()).putLong(id).putByte(mode)
                .putInt(index).putInt(count).putInt(announced);
        for (byte b : data) {
            out.putByte(b);
        }
        sessions.get(2).transport().send(1, Channels.REPLICA, out.buffer());
    }

    /** A complete part of one operator whose state is {@code state}. */
    private static byte[] wholeOf(byte[] state) {
        return FoldingTest.bytes(new PartSections(1).add(FoldingTest.OP, new WireOut(state.length + 8).putBytes(state)).done());
    }

    /** A part of changes of one operator: {@code state}. */
    private static byte[] changesOf(byte[] state) {
        return FoldingTest.bytes(new PartSections(1).addChanges(FoldingTest.OP, new WireOut(state.length + 8).putBytes(state)).done());
    }

    private static byte[] random(Random random, int bytes) {
        byte[] b = new byte[bytes];
        random.nextBytes(b);
        return b;
    }

    /** The next failure peer 1's service reported. */
    private Throwable nextFailure() throws InterruptedException {
        Throwable failure = failed1.poll(20, TimeUnit.SECONDS);
        assertThat(failure).as("a failure reported by peer 1").isNotNull();
        return failure;
    }

    @Test
    void whole_then_changes_go_as_changes_and_every_replica_holds_the_fold() throws Exception {
        ReplicaService peer1 = receiver();
        ReplicaService peer0 = sender(2, 20_000);
        assertThat(peer0.keepsChains()).isTrue();
        long[] values = {0, 10, 1, 3};
        for (long id = 1; id <= 3; id++) {
            Future<Void> written = write(peer0, id, 1, Map.of(PART0, id == 1 ? whole(values[1]) : changes(values[(int) id])));
            Put put = nextPut();
            assertThat(put.id()).isEqualTo(id);
            assertThat(put.mode()).as("checkpoint %d", id).isEqualTo(id == 1 ? ReplicaService.WHOLE : ReplicaService.CHANGES);
            held(id);
            written.get(20, TimeUnit.SECONDS);
        }

        ReplicaService.Held three = peer1.newestCommittedCovering(0);
        assertThat(three.id()).isEqualTo(3);
        assertThat(three.from()).isZero();
        assertThat(states(three.parts().get(PART0))).as("the whole state, then the changes of 2 and 3").isEqualTo("complete 10 1 3");
        assertThat(SavedState.ofPart(PART0, three.parts().get(PART0)).states(FoldingTest.OP.id(), 0))
                .extracting(WireIn::getLong).containsExactly(10L, 1L, 3L);
        assertThat(three.chain()).as("the chain as it arrived: the whole copy of 1, the changes of 2 and 3").hasSize(3);
        assertThat(three.chain().get(0).get(PART0)).isEqualTo(whole(10));
        assertThat(three.chain().get(2).get(PART0)).isEqualTo(changes(3));
        assertThat(peer1.idsCovering(0)).containsExactly(1L, 2L, 3L);
        assertThat(states(peer1.committedCopyAt(0, 2).parts().get(PART0))).as("an older copy stays as it was").isEqualTo("complete 10 1");
        assertThat(states(peer1.committedCopyAt(0, 1).parts().get(PART0))).isEqualTo("complete 10");
        assertThat(peer0.replicatedCut(0)).isEqualTo(3);
        assertThat(failed1).isEmpty();

        Future<Void> whole = write(peer0, 4, 4, Map.of(PART0, whole(50)));
        assertThat(nextPut().mode()).as("a whole checkpoint starts a new chain").isEqualTo(ReplicaService.WHOLE);
        held(4);
        whole.get(20, TimeUnit.SECONDS);
        assertThat(states(peer1.newestCommittedCovering(0).parts().get(PART0))).isEqualTo("complete 50");
        assertThat(peer1.newestCommittedCovering(0).chain()).as("a whole copy starts a new chain").hasSize(1);
    }

    @Test
    void changes_for_a_target_that_missed_the_checkpoint_before_fail_the_write_and_the_next_whole_one_is_held() throws Exception {
        ReplicaService peer1 = receiver();
        ReplicaService peer0 = sender(2, 3_000);
        Future<Void> one = write(peer0, 1, 1, Map.of(PART0, whole(10)));
        nextPut();
        held(1);
        one.get(20, TimeUnit.SECONDS);

        Future<Void> two = write(peer0, 2, 1, Map.of(PART0, changes(1)));
        assertThat(nextPut().mode()).isEqualTo(ReplicaService.CHANGES);
        // peer 2 never acknowledges checkpoint 2: it fails on peer 0 (the coordinator would make the next one whole)
        assertThatThrownBy(() -> two.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IOException.class).hasMessageContaining("did not acknowledge checkpoint 2");

        // as a new target after a view change: it never acknowledged the checkpoint before, so changes cannot go to it
        Future<Void> three = write(peer0, 3, 1, Map.of(PART0, changes(3)));
        assertThatThrownBy(() -> three.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IOException.class)
                .hasMessageContaining("the replica on peer 2 lacks checkpoint 3's base (it never acknowledged checkpoint 2 of this peer)")
                .hasMessageContaining("the next checkpoint not yet begun will be whole");

        Future<Void> four = write(peer0, 4, 4, Map.of(PART0, whole(40)));
        Put put = nextPut();
        assertThat(put.id()).as("checkpoint 3 went nowhere").isEqualTo(4);
        assertThat(put.mode()).isEqualTo(ReplicaService.WHOLE);
        held(4);
        four.get(20, TimeUnit.SECONDS);
        assertThat(peer1.newestCommittedCovering(0).chain()).hasSize(1);
        assertThat(states(peer1.newestCommittedCovering(0).parts().get(PART0))).isEqualTo("complete 40");

        Future<Void> five = write(peer0, 5, 4, Map.of(PART0, changes(5)));
        assertThat(nextPut().mode()).as("peer 2 acknowledged checkpoint 4").isEqualTo(ReplicaService.CHANGES);
        held(5);
        five.get(20, TimeUnit.SECONDS);
        assertThat(states(peer1.newestCommittedCovering(0).parts().get(PART0))).isEqualTo("complete 40 5");
        assertThat(peer0.replicatedCut(0)).isEqualTo(5);
    }

    @Test
    void send_whole_fails_the_write_naming_the_replica_and_the_following_whole_copy_is_held() throws Exception {
        ReplicaService peer1 = receiver();
        ReplicaService peer0 = sender(2, 20_000);
        Future<Void> one = write(peer0, 1, 1, Map.of(PART0, whole(10)));
        nextPut();
        held(1);
        one.get(20, TimeUnit.SECONDS);

        Future<Void> two = write(peer0, 2, 1, Map.of(PART0, changes(1)));
        assertThat(nextPut().mode()).isEqualTo(ReplicaService.CHANGES);
        ack(2, ReplicaService.SEND_WHOLE);
        assertThatThrownBy(() -> two.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IOException.class)
                .hasMessageContaining("the replica on peer 2 lacks checkpoint 2's base (it answered SEND_WHOLE)")
                .hasMessageContaining("the next checkpoint not yet begun will be whole");
        assertThat(peer0.replicatedCut(0)).as("checkpoint 2 does not count as replicated").isEqualTo(1);

        Future<Void> three = write(peer0, 3, 3, Map.of(PART0, whole(30)));
        Put put = nextPut();
        assertThat(put.id()).isEqualTo(3);
        assertThat(put.mode()).isEqualTo(ReplicaService.WHOLE);
        assertThat(states(put.parts().get(PART0))).isEqualTo("complete 30");
        assertThat(three).as("not acknowledged yet").isNotDone();
        held(3);
        three.get(20, TimeUnit.SECONDS);
        assertThat(peer0.replicatedCut(0)).isEqualTo(3);
        assertThat(peer1.newestCommittedCovering(0).id()).isEqualTo(3);
        assertThat(peer1.newestCommittedCovering(0).chain()).hasSize(1);
        assertThat(failed1).isEmpty();
    }

    @Test
    void a_replica_without_the_checkpoint_before_asks_for_the_whole_copy_and_then_holds_it() throws Exception {
        ReplicaService peer1 = receiver();
        put(2, ReplicaService.CHANGES, changes(1));
        assertThat(nextAck()).as("changes before any copy").isEqualTo(new Ack(1, 2, ReplicaService.SEND_WHOLE));
        assertThat(peer1.newestCommittedCovering(2)).isNull();

        put(1, ReplicaService.WHOLE, whole(10));
        committed(1);
        put(3, ReplicaService.CHANGES, changes(3)); // checkpoint 2 missed
        assertThat(nextAck()).isEqualTo(new Ack(1, 3, ReplicaService.SEND_WHOLE));
        assertThat(peer1.newestCommittedCovering(2).id()).as("still the copy of checkpoint 1").isEqualTo(1);

        byte[] folded = PartSections.append(PartSections.append(whole(10), changes(1)), changes(3));
        put(3, ReplicaService.WHOLE, folded);
        committed(3);
        assertThat(peer1.newestCommittedCovering(2).id()).isEqualTo(3);
        assertThat(states(peer1.newestCommittedCovering(2).parts().get(PART2))).isEqualTo("complete 10 1 3");

        put(4, ReplicaService.CHANGES, changes(4));
        committed(4);
        assertThat(states(peer1.newestCommittedCovering(2).parts().get(PART2))).isEqualTo("complete 10 1 3 4");
        assertThat(peer1.idsCovering(2)).containsExactly(1L, 3L, 4L);
        assertThat(failed1).isEmpty();
    }

    @Test
    void changes_that_cannot_be_folded_fail_the_job_naming_the_sender() throws Exception {
        ReplicaService peer1 = receiver();
        put(1, ReplicaService.WHOLE, whole(10));
        committed(1);
        put(2, ReplicaService.CHANGES, new byte[] {0, 0, 0, 1, 42, 42});

        Throwable failure = nextFailure();
        assertThat(failure).isInstanceOf(IllegalStateException.class).hasMessageContaining("malformed replica message")
                .hasMessageContaining("from peer 2").hasMessageContaining("part v0/2 of checkpoint 2 cannot be folded");
        assertThat(peer1.newestCommittedCovering(2).id()).as("the copy held is left as it was").isEqualTo(1);
    }

    @Test
    void a_snapshot_of_many_chunks_arrives_whole_and_is_the_copy_held_for_a_takeover() throws Exception {
        ReplicaService peer1 = receiver();
        ReplicaService peer0 = sender(2, 20_000, 64);
        Random random = new Random(15);
        byte[] big = wholeOf(random(random, 5_000));
        Future<Void> one = write(peer0, 1, 1, Map.of(PART0, whole(10), "v1/0", big));
        Put put = nextPut();
        assertThat(put.chunks()).as("5 KB in chunks of 64 bytes").isGreaterThan(75);
        assertThat(put.mode()).isEqualTo(ReplicaService.WHOLE);
        assertThat(put.parts()).containsOnlyKeys(PART0, "v1/0");
        assertThat(put.parts().get("v1/0")).isEqualTo(big);
        held(1);
        one.get(20, TimeUnit.SECONDS);

        ReplicaService.Held held = peer1.newestCommittedCovering(0);
        assertThat(held.id()).isEqualTo(1);
        assertThat(held.blocks()).containsExactly(0);
        assertThat(held.parts()).containsOnlyKeys(PART0, "v1/0");
        assertThat(held.parts().get("v1/0")).as("the copy a takeover restores").isEqualTo(big);
        assertThat(states(held.parts().get(PART0))).isEqualTo("complete 10");

        byte[] bigger = wholeOf(random(random, 7_000));
        Future<Void> two = write(peer0, 2, 1, Map.of(PART0, changes(1), "v1/0", bigger));
        Put changes = nextPut();
        assertThat(changes.mode()).isEqualTo(ReplicaService.CHANGES);
        assertThat(changes.chunks()).isGreaterThan(100);
        held(2);
        two.get(20, TimeUnit.SECONDS);
        assertThat(states(peer1.committedCopyAt(0, 2).parts().get(PART0))).as("changes in many chunks, folded").isEqualTo("complete 10 1");
        assertThat(peer1.committedCopyAt(0, 2).parts().get("v1/0")).isEqualTo(bigger);
        assertThat(peer1.committedCopyAt(0, 1).parts().get("v1/0")).isEqualTo(big);
        assertThat(peer0.replicatedCut(0)).isEqualTo(2);
        assertThat(failed1).isEmpty();
    }

    @Test
    void a_copy_left_unfinished_or_with_chunks_out_of_order_is_neither_acknowledged_nor_held() throws Exception {
        ReplicaService peer1 = receiver();
        byte[][] one = cut(body(whole(10)), 3);
        chunk(1, ReplicaService.WHOLE, 0, 3, one[0]);
        chunk(1, ReplicaService.WHOLE, 1, 3, one[1]);
        put(2, ReplicaService.WHOLE, whole(20), 3); // checkpoint 2 supersedes checkpoint 1's copy
        chunk(1, ReplicaService.WHOLE, 2, 3, one[2]); // the rest of the dropped copy
        put(99, ReplicaService.CHANGES, changes(5)); // every chunk before this one was handled once it is answered
        assertThat(nextAck()).isEqualTo(new Ack(1, 2, ReplicaService.HELD));
        assertThat(nextAck()).as("no acknowledgement of checkpoint 1").isEqualTo(new Ack(1, 99, ReplicaService.SEND_WHOLE));
        commit(2);
        assertThat(peer1.idsCovering(2)).containsExactly(2L);
        assertThat(states(peer1.newestCommittedCovering(2).parts().get(PART2))).isEqualTo("complete 20");

        byte[][] three = cut(body(whole(30)), 3);
        chunk(3, ReplicaService.WHOLE, 0, 3, three[0]);
        chunk(3, ReplicaService.WHOLE, 1, 3, three[1]);
        chunk(3, ReplicaService.WHOLE, 1, 3, three[1]); // a duplicate
        chunk(3, ReplicaService.WHOLE, 2, 3, three[2]);
        byte[][] four = cut(body(whole(40)), 3);
        chunk(4, ReplicaService.WHOLE, 0, 3, four[0]);
        chunk(4, ReplicaService.WHOLE, 2, 3, four[2]); // out of order
        chunk(4, ReplicaService.WHOLE, 1, 3, four[1]);
        byte[][] five = cut(body(whole(50)), 2);
        chunk(5, ReplicaService.WHOLE, 0, 2, five[0]);
        chunk(5, ReplicaService.CHANGES, 1, 2, five[1]); // of another copy: ignored
        put(99, ReplicaService.CHANGES, changes(5));
        assertThat(nextAck()).as("checkpoints 3, 4 and 5 not acknowledged").isEqualTo(new Ack(1, 99, ReplicaService.SEND_WHOLE));
        assertThat(peer1.idsCovering(2)).containsExactly(2L);
        assertThat(failed1).as("chunks out of order drop the copy, they do not fail the job").isEmpty();

        put(6, ReplicaService.WHOLE, whole(60), 4);
        committed(6);
        put(7, ReplicaService.CHANGES, changes(7), 5);
        committed(7);
        assertThat(states(peer1.newestCommittedCovering(2).parts().get(PART2))).isEqualTo("complete 60 7");
        assertThat(peer1.idsCovering(2)).containsExactly(2L, 6L, 7L);
    }

    @Test
    void a_malformed_chunk_is_refused_naming_the_peer_and_the_replica_goes_on() throws Exception {
        ReplicaService peer1 = receiver();
        byte[][] one = cut(body(whole(10)), 3);
        chunk(1, ReplicaService.WHOLE, 3, 2, one[0]);
        assertThat(nextFailure()).isInstanceOf(IllegalStateException.class).hasMessageContaining("malformed replica message")
                .hasMessageContaining("from peer 2").hasMessageContaining("chunk 3 of 2 of checkpoint 1: no such chunk");

        chunk(1, ReplicaService.WHOLE, 0, 3, one[0]);
        chunk(1, ReplicaService.WHOLE, 1, 4, one[1]);
        assertThat(nextFailure()).hasMessageContaining("from peer 2")
                .hasMessageContaining("chunk 1 of 4 of checkpoint 1, but the copy in progress has 3 chunks");
        chunk(1, ReplicaService.WHOLE, 2, 3, one[2]); // the copy was dropped with the garbage

        chunk(1, ReplicaService.WHOLE, 0, 1, 100, one[0]);
        assertThat(nextFailure()).hasMessageContaining("from peer 2")
                .hasMessageContaining("chunk 0 of 1 of checkpoint 1 announces 100 data bytes, " + one[0].length + " follow");
        chunk(1, ReplicaService.WHOLE, 0, 2, new byte[0]);
        assertThat(nextFailure()).hasMessageContaining("from peer 2").hasMessageContaining("announces 0 data bytes");
        chunk(1, ReplicaService.WHOLE, 0, 2, new byte[] {0, 0});
        chunk(1, ReplicaService.WHOLE, 1, 2, new byte[] {0, 9});
        assertThat(nextFailure()).as("a body of garbage, gathered").hasMessageContaining("from peer 2")
                .hasMessageContaining("count 9 does not fit in the 0 bytes left of the copy");

        put(1, ReplicaService.WHOLE, whole(10), 3);
        assertThat(nextAck()).as("the first acknowledgement: no garbage was held").isEqualTo(new Ack(1, 1, ReplicaService.HELD));
        commit(1);
        assertThat(peer1.idsCovering(2)).containsExactly(1L);
        assertThat(states(peer1.newestCommittedCovering(2).parts().get(PART2))).isEqualTo("complete 10");
        assertThat(failed1).isEmpty();
    }

    @Test
    void a_replica_keeps_the_chain_as_it_arrived_and_a_takeover_reads_it_folded() throws Exception {
        ReplicaService peer1 = receiver();
        List<Map<String, byte[]>> sent = new ArrayList<>();
        for (long id = 1; id <= 5; id++) {
            byte[] part = id == 1 ? whole(10) : changes(id);
            sent.add(Map.of(PART2, part));
            put(id, id == 1 ? ReplicaService.WHOLE : ReplicaService.CHANGES, part, id == 4 ? 3 : 1);
            committed(id);
        }

        ReplicaService.Held five = peer1.newestCommittedCovering(2);
        assertThat(five.id()).isEqualTo(5);
        assertThat(five.chain()).as("nothing folded: the whole copy of 1 and the changes of 2 to 5").hasSize(5);
        for (int i = 0; i < 5; i++) {
            assertThat(five.chain().get(i)).containsOnlyKeys(PART2);
            assertThat(five.chain().get(i).get(PART2)).as("checkpoint %d as sent", i + 1).isEqualTo(sent.get(i).get(PART2));
        }
        byte[] reference = FoldingTest.foldedPairwise(sent).get(PART2);
        assertThat(five.part(PART2)).as("what a takeover restores: the fold of the chain").isEqualTo(reference);
        assertThat(states(five.part(PART2))).isEqualTo("complete 10 2 3 4 5");
        assertThat(SavedState.of(five.chain()).states(FoldingTest.OP.id(), 2)).as("as the runtime folds a restored chain")
                .extracting(WireIn::getLong).containsExactly(10L, 2L, 3L, 4L, 5L);
        assertThat(five.part("v0/9")).isNull();
        assertThat(peer1.idsCovering(2)).containsExactly(3L, 4L, 5L);
        assertThat(states(peer1.committedCopyAt(2, 3).part(PART2))).as("an older copy: a shorter chain").isEqualTo("complete 10 2 3");

        put(6, ReplicaService.WHOLE, whole(60));
        committed(6);
        assertThat(peer1.newestCommittedCovering(2).chain()).as("a whole copy replaces the chain").hasSize(1);
        put(7, ReplicaService.CHANGES, changes(7));
        committed(7);
        assertThat(peer1.newestCommittedCovering(2).chain()).hasSize(2);
        assertThat(states(peer1.newestCommittedCovering(2).part(PART2))).isEqualTo("complete 60 7");
        assertThat(states(peer1.committedCopyAt(2, 5).part(PART2))).as("the copy of 5 kept for a common checkpoint").isEqualTo("complete 10 2 3 4 5");
        assertThat(failed1).isEmpty();
    }

    @Test
    void a_chain_past_its_bound_in_checkpoints_or_bytes_is_answered_send_whole_and_the_copy_held_stays() throws Exception {
        ReplicaService peer1 = receiver(3);
        put(1, ReplicaService.WHOLE, whole(10));
        committed(1);
        put(2, ReplicaService.CHANGES, changes(2));
        committed(2);
        put(3, ReplicaService.CHANGES, changes(3));
        committed(3);
        put(4, ReplicaService.CHANGES, changes(4));
        assertThat(nextAck()).as("a fourth checkpoint in a chain of at most three").isEqualTo(new Ack(1, 4, ReplicaService.SEND_WHOLE));
        assertThat(peer1.newestCommittedCovering(2).id()).isEqualTo(3);
        assertThat(states(peer1.newestCommittedCovering(2).part(PART2))).isEqualTo("complete 10 2 3");
        put(4, ReplicaService.WHOLE, whole(40));
        committed(4);
        assertThat(peer1.newestCommittedCovering(2).chain()).hasSize(1);

        Random random = new Random(4);
        int floor = (int) ReplicaService.CHAIN_BYTES_FLOOR;
        put(5, ReplicaService.WHOLE, wholeOf(random(random, floor + floor / 4)), 4);
        committed(5);
        put(6, ReplicaService.CHANGES, changesOf(random(random, floor * 7 / 5)), 4);
        assertThat(nextAck()).as("changes of 1.4 MiB onto a whole copy of 1.25 MiB: a growing state").isEqualTo(new Ack(1, 6,
                ReplicaService.HELD));
        commit(6);
        put(7, ReplicaService.CHANGES, changesOf(random(random, floor * 12 / 5)), 4);
        assertThat(nextAck()).as("changes of 3.8 MiB onto a whole copy of 1.25 MiB").isEqualTo(new Ack(1, 7, ReplicaService.SEND_WHOLE));
        assertThat(peer1.newestCommittedCovering(2).id()).isEqualTo(6);
        assertThat(peer1.newestCommittedCovering(2).chain()).hasSize(2);

        put(8, ReplicaService.WHOLE, whole(80));
        committed(8);
        for (long id = 9; id <= 10; id++) {
            put(id, ReplicaService.CHANGES, changes(id));
            assertThat(nextAck()).as("changes of a few bytes onto a small whole copy: under the floor").isEqualTo(new Ack(1, id,
                    ReplicaService.HELD));
        }
        assertThat(failed1).isEmpty();
    }

    @Test
    void a_sender_asks_for_a_whole_checkpoint_before_its_changes_would_outgrow_what_its_replicas_accept() throws Exception {
        receiver();
        ReplicaService peer0 = sender(2, 20_000);
        Random random = new Random(7);
        int floor = (int) ReplicaService.CHAIN_BYTES_FLOOR;
        assertThat(peer0.prefersWhole()).as("nothing sent yet").isFalse();
        Future<Void> one = write(peer0, 1, 1, Map.of(PART0, wholeOf(random(random, floor * 2))));
        nextPut();
        held(1);
        one.get(20, TimeUnit.SECONDS);
        assertThat(peer0.prefersWhole()).as("a whole copy held, no changes yet").isFalse();
        Future<Void> two = write(peer0, 2, 1, Map.of(PART0, changesOf(random(random, floor / 8))));
        nextPut();
        held(2);
        two.get(20, TimeUnit.SECONDS);
        assertThat(peer0.prefersWhole()).as("small changes onto a 2 MiB copy").isFalse();
        Future<Void> three = write(peer0, 3, 1, Map.of(PART0, changesOf(random(random, floor * 5 / 2))));
        nextPut();
        held(3);
        three.get(20, TimeUnit.SECONDS);
        assertThat(peer0.prefersWhole()).as("2.6 MiB of changes held, two more like the last would pass three times the 2 MiB copy")
                .isTrue();
        Future<Void> four = write(peer0, 4, 4, Map.of(PART0, wholeOf(random(random, floor * 2))));
        nextPut();
        held(4);
        four.get(20, TimeUnit.SECONDS);
        assertThat(peer0.prefersWhole()).as("a whole copy starts again (two changes like the last, 5 MiB, fit under 6 MiB)").isFalse();
    }
    /**
     * A copy held is not yet one a takeover may resume from: only once its sender committed it
     * (everything it sent before the barrier delivered). One replica keeps the committed copy beside
     * the newer one until that is committed, and at most two copies newer than the committed one.
     */
    @Test
    void a_copy_counts_for_a_takeover_only_once_its_sender_committed_it() throws Exception {
        ReplicaService peer1 = receiver(1, MAX_CHAIN);
        put(1, ReplicaService.WHOLE, whole(10));
        assertThat(nextAck()).isEqualTo(new Ack(1, 1, ReplicaService.HELD));
        assertThat(peer1.newestCommittedCovering(2)).as("held, not committed").isNull();
        commit(1);
        put(2, ReplicaService.CHANGES, changes(2));
        assertThat(nextAck()).isEqualTo(new Ack(1, 2, ReplicaService.HELD));
        assertThat(peer1.newestCommittedCovering(2).id()).as("checkpoint 2 held, not committed").isEqualTo(1);
        assertThat(peer1.committedCopyAt(2, 2)).isNull();
        assertThat(peer1.idsCovering(2)).as("the committed copy kept beside the newer one").containsExactly(1L, 2L);
        commit(2);
        assertThat(states(peer1.newestCommittedCovering(2).part(PART2))).isEqualTo("complete 10 2");
        assertThat(peer1.idsCovering(2)).as("one replica: the newest committed copy only").containsExactly(2L);

        sendCommit(9);
        assertThat(nextAck()).as("a commit of a copy not held here is refused").isEqualTo(new Ack(1, 9, ReplicaService.SEND_WHOLE));
        for (long id = 3; id <= 5; id++) {
            put(id, ReplicaService.CHANGES, changes(id));
            assertThat(nextAck()).isEqualTo(new Ack(1, id, ReplicaService.HELD));
        }
        assertThat(peer1.idsCovering(2)).as("two copies kept beyond the committed one").containsExactly(2L, 4L, 5L);
        assertThat(peer1.newestCommittedCovering(2).id()).isEqualTo(2);
        commit(5);
        assertThat(states(peer1.newestCommittedCovering(2).part(PART2))).isEqualTo("complete 10 2 3 4 5");
        assertThat(peer1.idsCovering(2)).containsExactly(5L);
        assertThat(failed1).isEmpty();
    }

    /**
     * A write returns, and its checkpoint counts as replicated, only once every target answered its
     * COMMIT; a target that refuses the commit fails the write, which then counts for nothing.
     */
    @Test
    void a_write_returns_and_counts_as_replicated_only_once_every_target_answered_its_commit() throws Exception {
        ReplicaService peer1 = receiver();
        ReplicaService peer0 = sender(2, 20_000);
        Future<Void> one = write(peer0, 1, 1, Map.of(PART0, whole(10)));
        nextPut();
        ack(1, ReplicaService.HELD);
        assertThat(next(ReplicaService.COMMIT).getLong()).isEqualTo(1);
        assertThat(one).as("held by both targets, the commit not yet answered by peer 2").isNotDone();
        assertThat(peer0.replicatedCut(0)).isZero();
        ack(1, ReplicaService.COMMITTED);
        one.get(20, TimeUnit.SECONDS);
        assertThat(peer0.replicatedCut(0)).isEqualTo(1);
        assertThat(peer1.newestCommittedCovering(0).id()).isEqualTo(1);

        Future<Void> two = write(peer0, 2, 1, Map.of(PART0, changes(2)));
        nextPut();
        ack(2, ReplicaService.HELD);
        assertThat(next(ReplicaService.COMMIT).getLong()).isEqualTo(2);
        ack(2, ReplicaService.SEND_WHOLE);
        assertThatThrownBy(() -> two.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IOException.class)
                .hasMessageContaining("checkpoint 2 of peer 0 is not committed: peer 2 does not hold its copy");
        assertThat(peer0.replicatedCut(0)).as("checkpoint 2 does not count as replicated").isEqualTo(1);
    }
}
