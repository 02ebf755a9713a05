/** A stand-in engine internal for {@code air.dsl.PublicApiTest}: what the public API must not name. */
package air.dsl.apicheck.impl;

