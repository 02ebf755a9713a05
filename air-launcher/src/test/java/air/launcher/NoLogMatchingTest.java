package air.launcher;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The launcher decides from events, never from the peers' log text: no regular expressions, no
 * regex-taking String methods, and only the cluster itself touches the peers' output stream.
 */
class NoLogMatchingTest {

    private static final JavaClasses LAUNCHER = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("air.launcher");

    @Test
    void nothing_in_the_launcher_uses_regular_expressions() {
        noClasses().should().dependOnClassesThat().resideInAPackage("java.util.regex..").check(LAUNCHER);
        noClasses().should().callMethod(String.class, "matches", String.class)
                .orShould().callMethod(String.class, "split", String.class)
                .orShould().callMethod(String.class, "split", String.class, int.class)
                .orShould().callMethod(String.class, "replaceAll", String.class, String.class)
                .orShould().callMethod(String.class, "replaceFirst", String.class, String.class)
                .check(LAUNCHER);
    }

    @Test
    void the_supervisors_never_read_the_peers_output() {
        noClasses().that().haveSimpleNameEndingWith("Supervisor")
                .should().callMethod(LocalCluster.Spec.class, "withOutput", Consumer.class)
                .orShould().callMethod(LocalCluster.class, "process", int.class)
                .check(LAUNCHER);
    }
}
