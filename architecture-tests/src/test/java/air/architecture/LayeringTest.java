package air.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import air.runtime.JvmFlags;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The module layering (docs/architecture.md), checked rather than hoped for. It lives in a module
 * of its own, built last, whose test classpath holds every other module's classes; a violation
 * fails the build.
 */
class LayeringTest {

    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("air");

    @Test
    void dependencies_point_one_way() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("benchmarks").definedBy("air.benchmarks..")
                .layer("samples").definedBy("air.samples..")
                .layer("launcher").definedBy("air.launcher..")
                .layer("workloads").definedBy("air.workloads..")
                .layer("testkit").definedBy("air.test..")
                .layer("dsl").definedBy("air.dsl..")
                .layer("replication").definedBy("air.replication..")
                .layer("checkpointFiles").definedBy("air.checkpoint.files..")
                .layer("runtime").definedBy("air.runtime..")
                .layer("hewmeld").definedBy("air.hewmeld..")
                .layer("mpj").definedBy("air.mpj..")
                .layer("channels").definedBy("air.channels..")
                .layer("wire").definedBy("air.wire..")
                .whereLayer("benchmarks").mayNotBeAccessedByAnyLayer()
                .whereLayer("samples").mayOnlyBeAccessedByLayers("benchmarks")
                .whereLayer("launcher").mayOnlyBeAccessedByLayers("samples", "benchmarks")
                .whereLayer("workloads").mayOnlyBeAccessedByLayers("samples", "benchmarks")
                .whereLayer("testkit").mayNotBeAccessedByAnyLayer()
                .whereLayer("dsl").mayOnlyBeAccessedByLayers("testkit", "samples", "benchmarks")
                .whereLayer("replication").mayNotBeAccessedByAnyLayer()
                .whereLayer("checkpointFiles").mayNotBeAccessedByAnyLayer()
                // found through air.channels.bootstrap.MpjProvider only (the frame benchmark measures it): nothing else needs MPJ
                .whereLayer("mpj").mayOnlyBeAccessedByLayers("benchmarks")
                .whereLayer("runtime").mayOnlyBeAccessedByLayers("dsl", "testkit", "workloads", "launcher", "samples", "replication",
                        "checkpointFiles", "benchmarks")
                .whereLayer("hewmeld").mayOnlyBeAccessedByLayers("runtime", "replication", "benchmarks")
                .whereLayer("channels").mayOnlyBeAccessedByLayers("runtime", "replication", "checkpointFiles", "mpj", "testkit", "launcher",
                        "samples", "benchmarks")
                .check(CLASSES);
    }

    @Test
    void progress_tracking_is_pure_data_that_knows_nothing_of_the_engine_or_the_transports() {
        noClasses().that().resideInAPackage("air.hewmeld..").should().dependOnClassesThat()
                .resideInAnyPackage("air.runtime..", "air.channels..", "air.mpj..", "air.dsl..", "air.replication..", "air.checkpoint..",
                        "air.launcher..")
                .check(CLASSES);
        noClasses().that().resideInAPackage("air.wire..").should().dependOnClassesThat()
                .resideOutsideOfPackages("air.wire..", "java..").check(CLASSES);
    }

    @Test
    void the_runtime_never_knows_the_dsl_the_replication_module_or_a_transport_and_only_the_mpj_transport_touches_mpi() {
        noClasses().that().resideInAPackage("air.runtime..").should().dependOnClassesThat()
                .resideInAnyPackage("air.dsl..", "air.replication..", "air.checkpoint..", "air.launcher..").check(CLASSES);
        // the two fault-tolerance modules plug into the runtime separately and know nothing of each other
        noClasses().that().resideInAPackage("air.replication..").should().dependOnClassesThat().resideInAPackage("air.checkpoint..")
                .check(CLASSES);
        noClasses().that().resideInAPackage("air.checkpoint..").should().dependOnClassesThat().resideInAPackage("air.replication..")
                .check(CLASSES);
        // the engine opens transports through the bootstrap and talks to them through the SPI only
        noClasses().that().resideInAnyPackage("air.runtime..", "air.dsl..", "air.samples..", "air.workloads..", "air.launcher..")
                .should().dependOnClassesThat().resideInAnyPackage("air.mpj..", "air.channels.tcp..", "air.channels.impl..")
                .check(CLASSES);
        // the frame benchmark's raw-MPJ baseline measures what the transport adds, so it may call MPJ itself
        noClasses().that().resideOutsideOfPackages("air.mpj..", "air.benchmarks..").should().dependOnClassesThat()
                .resideInAPackage("mpi..").allowEmptyShould(true).check(CLASSES);
    }

    @Test
    void operators_never_see_a_progress_mode_a_routing_or_a_protocol() {
        noClasses().that().resideInAPackage("air.runtime.impl.ops..").should().dependOnClassesThat()
                .resideInAnyPackage("air.hewmeld..", "air.runtime.impl.inbound..", "air.runtime.impl.exec..", "air.runtime.ft..", "air.replication..")
                .check(CLASSES);
        noClasses().that().resideInAPackage("air.runtime.impl.ops..").should().dependOnClassesThat()
                .haveFullyQualifiedName("air.runtime.plan.Progress")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("air.runtime.plan.Routing")
                .check(CLASSES);
    }

    /**
     * The data plane (issue 30) sits below the operators, the routings, the progress modes and the
     * executor and knows none of them; the routings and progress modes reach the data through it,
     * never through the operators; the control plane never reaches into the executor.
     */
    @Test
    void the_data_plane_knows_no_operator_routing_progress_mode_or_executor() {
        noClasses().that().resideInAPackage("air.runtime.impl.shuffle..").should().dependOnClassesThat()
                .resideInAnyPackage("air.runtime.impl.ops..", "air.runtime.impl.routing..", "air.runtime.impl.progress..",
                        "air.runtime.impl.exec..", "air.runtime.impl.inbound..", "air.runtime.impl.checkpoint..", "air.runtime.impl.cluster..")
                .check(CLASSES);
        noClasses().that().resideInAnyPackage("air.runtime.impl.routing..", "air.runtime.impl.progress..").should().dependOnClassesThat()
                .resideInAPackage("air.runtime.impl.ops..").check(CLASSES);
        noClasses().that().resideInAPackage("air.runtime.impl.cluster..").should().dependOnClassesThat()
                .resideInAPackage("air.runtime.impl.exec..").check(CLASSES);
    }

    @Test
    void every_per_record_operator_class_is_in_the_package_the_jit_flags_force_inline() {
        classes().that().implement("air.runtime.impl.ops.Inlet").or().implement("air.runtime.impl.ops.KeyedFrame")
                .should().resideInAPackage(JvmFlags.OPERATOR_PACKAGE)
                .check(CLASSES);
    }

    /**
     * The runtime's public packages (what applications and connectors compile against) never reach
     * into its implementation, but for the classes named here: the engine's entry points and
     * {@code Cluster}, the sources that hand out the engine's own readers, and the fault-tolerance
     * SPI, whose impl types are issue 30's item 2 (each one removed from this list as it goes).
     */
    @Test
    void the_runtimes_public_packages_never_import_its_implementation_but_the_named_classes() {
        noClasses().that().resideInAnyPackage("air.runtime", "air.runtime.api..", "air.runtime.plan..", "air.runtime.operator..",
                        "air.runtime.sink..", "air.runtime.serial..", "air.runtime.source..", "air.runtime.ft..")
                .and().haveNameNotMatching("air\\.runtime\\.(Cluster|Engine|source\\.(GeneratorSource|SupplierSource|split\\.SplitSource)"
                        + "|ft\\.(FaultTolerance|ReplicationProvider|ShuffleWiring))(\\$.*)?")
                .should().dependOnClassesThat().resideInAPackage("air.runtime.impl..")
                .check(CLASSES);
    }

    @Test
    void samples_the_workloads_and_the_test_kit_use_the_public_api_only() {
        noClasses().that().resideInAnyPackage("air.samples..", "air.workloads..", "air.test..").should().dependOnClassesThat()
                .resideInAnyPackage("air.runtime.impl..", "air.dsl.impl..", "air.channels.impl..").check(CLASSES);
    }
}
