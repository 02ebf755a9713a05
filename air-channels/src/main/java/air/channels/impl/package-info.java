/** Transport implementations. Only the MPJ one (to come) may import {@code mpi.*}. */
package air.channels.impl;

