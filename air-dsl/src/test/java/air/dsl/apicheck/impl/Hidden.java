package air.dsl.apicheck.impl;

/** An engine internal, for {@code PublicApiTest}'s check of its own rule. */
public class Hidden extends Exception {
    private static final long serialVersionUID = 1L;
}
