package air.runtime.plan;

/**
 * A record a keyed process function sent to its side output {@code tag}, as it travels down the
 * operator's vertex: the planner puts, in front of each reader of a side output, a filter that
 * keeps that tag's items and unwraps them, and in front of the main output a filter that drops
 * every side output's items. So side outputs need no operator of their own.
 */
public record SideOutputItem(String tag, Object value) {
}
