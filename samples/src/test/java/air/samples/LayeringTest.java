package air.samples;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The module layering of DESIGN.md section 1, checked rather than hoped for. */
class LayeringTest {

    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("air");

    @Test
    void dependencies_point_one_way() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("samples").definedBy("air.samples..")
                .layer("launcher").definedBy("air.launcher..")
                .layer("workloads").definedBy("air.workloads..")
                .layer("dsl").definedBy("air.dsl..")
                .layer("replication").definedBy("air.replication..")
                .layer("runtime").definedBy("air.runtime..")
                .layer("hewmeld").definedBy("air.hewmeld..")
                .layer("channels").definedBy("air.channels..")
                .layer("wire").definedBy("air.wire..")
                .whereLayer("samples").mayNotBeAccessedByAnyLayer()
                .whereLayer("launcher").mayOnlyBeAccessedByLayers("samples")
                .whereLayer("workloads").mayOnlyBeAccessedByLayers("samples")
                .whereLayer("dsl").mayOnlyBeAccessedByLayers("samples")
                .whereLayer("replication").mayNotBeAccessedByAnyLayer()
                .whereLayer("runtime").mayOnlyBeAccessedByLayers("dsl", "workloads", "samples", "replication", "launcher")
                .whereLayer("hewmeld").mayOnlyBeAccessedByLayers("runtime", "dsl", "samples", "replication")
                .whereLayer("channels").mayOnlyBeAccessedByLayers("runtime", "dsl", "samples", "replication", "launcher")
                .whereLayer("wire").mayOnlyBeAccessedByLayers("channels", "hewmeld", "runtime", "dsl", "samples", "replication", "launcher")
                .check(CLASSES);
    }

    @Test
    void the_runtime_never_knows_the_dsl_and_only_the_channels_may_touch_mpi() {
        noClasses().that().resideInAPackage("air.runtime..").should().dependOnClassesThat().resideInAPackage("air.dsl..")
                .check(CLASSES);
        noClasses().that().resideOutsideOfPackage("air.channels.mpj..").should().dependOnClassesThat().resideInAPackage("mpi..")
                .allowEmptyShould(true).check(CLASSES);
    }

    /** The kill/restart supervisors decide from the peers' job events, never by matching their log lines. */
    @Test
    void the_supervisors_match_no_log_text() {
        noClasses().that().resideInAnyPackage("air.launcher..", "air.samples..").and().haveNameMatching(".*Supervisor(\\$.*)?")
                .should().dependOnClassesThat().resideInAPackage("java.util.regex..")
                .orShould().callMethod(String.class, "matches", String.class)
                .orShould().callMethod(String.class, "split", String.class)
                .orShould().callMethod(String.class, "replaceAll", String.class, String.class)
                .orShould().callMethod(String.class, "contains", CharSequence.class)
                .orShould().callMethod(String.class, "startsWith", String.class)
                .orShould().callMethod(String.class, "indexOf", String.class)
                .orShould().callMethod(air.launcher.LocalCluster.Spec.class, "withOutput", java.util.function.Consumer.class)
                .check(CLASSES);
        noClasses().that().resideInAPackage("air.launcher..").should().dependOnClassesThat().resideInAPackage("java.util.regex..")
                .check(CLASSES);
    }

    @Test
    void samples_use_the_dsl_not_the_runtime_internals() {
        noClasses().that().resideInAPackage("air.samples..").should().dependOnClassesThat().resideInAPackage("air.runtime.impl..")
                .check(CLASSES);
    }
}
