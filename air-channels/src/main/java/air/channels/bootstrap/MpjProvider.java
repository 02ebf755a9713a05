package air.channels.bootstrap;

import air.channels.Transport;
import java.util.List;

/**
 * Joins an MPJ Express world: implemented by the {@code air-mpj} module (registered in
 * {@code META-INF/services}), the only one that touches {@code mpi.*}. The bootstrap finds it with
 * {@link java.util.ServiceLoader} when a world asks for MPJ, so an application that runs embedded
 * or over TCP needs neither that module nor MPJ Express.
 */
public interface MpjProvider {

    /**
     * {@code MPI.Init(initArgs)} (muting MPJ's start-up trace when {@code quietInit}) and a
     * transport over the world it joined, described as {@code description} in logs and errors. At
     * most once per JVM.
     */
    Joined join(List<String> initArgs, String description, boolean quietInit);

    /** A joined world: its transport, the program's own arguments MPJ handed back, and how to leave it. */
    interface Joined {
        Transport transport();

        /** What {@code MPI.Init} left of the arguments: the program's own (under {@code mpjrun}). */
        String[] userArgs();

        /** {@code MPI.Finalize}, once the transport is closed. */
        void leave();
    }
}
