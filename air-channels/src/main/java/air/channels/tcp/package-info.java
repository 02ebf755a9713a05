/**
 * AIR's own TCP transport. It exists because replication must survive the death of a peer: MPJ
 * Express niodev breaks every link of every rank when one dies and cannot shrink its world, while
 * here a dead peer only breaks the connections to it. Same frames, same validation as the other
 * transports; peers meet through the same rendezvous the MPJ launcher serves.
 */
package air.channels.tcp;

