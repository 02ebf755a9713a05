package air.dsl;

import air.runtime.api.CheckpointStore;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A checkpoint store that hands every call to another (the file store, for tests that watch or
 * inject faults into its writes): a test's store overrides what it watches and nothing else.
 */
abstract class ForwardingStore implements CheckpointStore {

    final CheckpointStore inner;

    ForwardingStore(CheckpointStore inner) {
        this.inner = inner;
    }

    @Override public void write(String job, long id, int peer, int peers, Map<String, byte[]> parts) throws IOException {
        write(job, id, id, peer, peers, parts);
    }
    @Override public void write(String job, long id, long base, int peer, int peers, Map<String, byte[]> parts) throws IOException {
        inner.write(job, id, base, peer, peers, parts);
    }
    @Override public boolean keepsChains() {
        return inner.keepsChains();
    }
    @Override public boolean prefersWhole() {
        return inner.prefersWhole();
    }
    @Override public Optional<Restored> newestComplete(String job, int peer, int peers) throws IOException {
        return inner.newestComplete(job, peer, peers);
    }
    @Override public boolean writtenByAll(String job, long id, int peers) throws IOException {
        return inner.writtenByAll(job, id, peers);
    }
    @Override public long newestBegun(String job) throws IOException {
        return inner.newestBegun(job);
    }
    @Override public long newestWrittenByAll(String job, int peers) throws IOException {
        return inner.newestWrittenByAll(job, peers);
    }
    @Override public String liveRun(String job) throws IOException {
        return inner.liveRun(job);
    }
    @Override public void discardNewerThan(String job, long id, int peer) throws IOException {
        inner.discardNewerThan(job, id, peer);
    }
    @Override public List<String> jobs() throws IOException {
        return inner.jobs();
    }
    @Override public void discard(String job) throws IOException {
        inner.discard(job);
    }
    @Override public Claim claim(String job, int peer, int peers) throws IOException {
        return inner.claim(job, peer, peers);
    }
    @Override public String describe() {
        return inner.describe();
    }
}
