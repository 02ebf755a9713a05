/** Fixtures for {@code air.dsl.PublicApiTest}: a public class that leaks an impl type in every way the rule must see. */
package air.dsl.apicheck;

