/**
 * YSB-mem over Kafka ({@code ./air ysb-kafka}): the run's events produced into a topic, then read
 * by the ysb query through {@code air-kafka}'s source, with the same output checks as {@code ./air ysb}.
 */
package air.samples.kafka;
