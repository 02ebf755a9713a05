package air.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns a whole Kafka record (key, value, headers, timestamp, partition, offset) into a record of
 * the job, for a pipeline that needs more than the value: the record's timestamp as event time,
 * its key. It may throw: the record is then a bad record (see {@link KafkaDeserializer}).
 */
@FunctionalInterface
public interface KafkaRecordDeserializer<T> {

    T deserialize(ConsumerRecord<byte[], byte[]> record) throws Exception;
}
