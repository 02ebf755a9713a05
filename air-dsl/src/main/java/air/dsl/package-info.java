/**
 * The fluent DSL: {@link air.dsl.Pipeline}, {@link air.dsl.Stage} and friends. Stages record a
 * pure-data logical plan and validate every call where it is made, so misuse fails with the call
 * and its source line before anything runs. The planner fuses stateless chains and splits keyed
 * windows into a local partial and a shuffled final half.
 *
 * <h2>What a first job needs</h2>
 * Everything is reached from this package's classes; the types they hand back live in the
 * runtime's public packages (never an {@code impl} one):
 * <ul>
 *   <li>{@link air.dsl.Pipeline#create}, then {@link air.dsl.Pipeline#readFrom} a source of
 *       {@link air.dsl.Sources} ({@code fromList}, {@code generate}, {@code push} for live input);</li>
 *   <li>stages: {@link air.dsl.Stage#map}, {@link air.dsl.Stage#filter}, {@link air.dsl.Stage#withTimestamps},
 *       {@link air.dsl.Stage#keyBy}, then {@link air.dsl.KeyedStage#window} with {@link air.dsl.Windows}
 *       and {@link air.dsl.WindowedStage#aggregate} with {@link air.dsl.Aggregations} — each result an
 *       {@link air.runtime.api.WindowResult} (start, end, key, value);</li>
 *   <li>a sink of {@link air.dsl.Sinks}: {@code collect()} gives a typed
 *       {@link air.runtime.sink.CollectSink} whose {@code items()} need no cast, {@code print},
 *       {@code callback}, {@code files};</li>
 *   <li>{@link air.dsl.Pipeline#execute(air.runtime.JobConfig)} with
 *       {@link air.runtime.JobConfig#defaults()} ({@code workers}, {@code routing}, {@code progress},
 *       {@code checkpoints}); it returns the {@link air.runtime.Job}, whose
 *       {@link air.runtime.Job#summary()} says what it did.</li>
 * </ul>
 * The {@code quickstart/} project of the repository is such a job, with its test.
 */
package air.dsl;
