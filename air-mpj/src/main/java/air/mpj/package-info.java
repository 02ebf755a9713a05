/**
 * The MPJ Express transport: one {@code mpi.Comm} per channel over niodev, started daemon-less by
 * the local launcher or {@code srun}, or in the world {@code mpjrun} made
 * ({@link air.mpj.MpjTransport}, {@link air.mpj.MpjWorld}).
 *
 * <p>Why it is a module of its own: MPJ Express is not on Maven Central and brings log4j 1.2 onto
 * the class path. Only this package touches {@code mpi.*}; the bootstrap in {@code air-channels}
 * finds it through {@code air.channels.bootstrap.MpjProvider} ({@link air.mpj.MpjExpress}), so an
 * application that runs embedded or over TCP never needs MPJ Express to build or run, and one that
 * runs over MPJ adds {@code dev.air:air-mpj} on purpose.
 */
package air.mpj;
