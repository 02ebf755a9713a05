package air.dsl;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.apicheck.Leaky;
import air.dsl.apicheck.impl.Hidden;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The public API names no engine internals: no public or protected member of a public class in
 * the API packages (their types, parameters, results, exceptions, type arguments and supertypes
 * included) is of a type from an {@code ..impl..} package. Here because only this module sees
 * both the runtime's API and the DSL's.
 */
class PublicApiTest {

    /** The packages users program against. */
    static final String[] API = {"air.runtime", "air.runtime.api", "air.runtime.plan", "air.runtime.operator", "air.runtime.sink",
        "air.runtime.source", "air.dsl"};

    @Test
    void the_public_api_exposes_no_impl_type() {
        classes().that().resideInAnyPackage(API).and(PublicApiTest.visible())
                .should(exposeNoImplType())
                .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("air.runtime", "air.dsl"));
    }

    @Test
    void the_rule_sees_every_way_to_leak() {
        EvaluationResult r = classes().that().resideInAPackage("air.dsl.apicheck").should(exposeNoImplType())
                .evaluate(new ClassFileImporter().importClasses(Leaky.class, Hidden.class));
        String hidden = Hidden.class.getName();
        assertThat(r.getFailureReport().getDetails()).containsExactlyInAnyOrder(
                "air.dsl.apicheck.Leaky: implements " + hidden,
                "air.dsl.apicheck.Leaky: field field " + hidden,
                "air.dsl.apicheck.Leaky: field listed " + hidden,
                "air.dsl.apicheck.Leaky: constructor <init>(1 params) takes " + hidden,
                "air.dsl.apicheck.Leaky: method get(0 params) returns " + hidden,
                "air.dsl.apicheck.Leaky: method take(1 params) takes " + hidden,
                "air.dsl.apicheck.Leaky: method bounded(1 params) takes " + hidden,
                "air.dsl.apicheck.Leaky: method bounded(1 params) type parameter " + hidden,
                "air.dsl.apicheck.Leaky: method fail(0 params) throws " + hidden);
    }

    private static DescribedPredicate<JavaClass> visible() {
        return DescribedPredicate.describe("are visible outside their package", PublicApiTest::isVisible);
    }

    private static boolean isVisible(JavaClass c) {
        for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
            if (!k.getModifiers().contains(JavaModifier.PUBLIC) || k.isAnonymousClass() || k.isLocalClass()) {
                return false;
            }
        }
        return true;
    }

    private static boolean isImpl(JavaClass type) {
        return type.getBaseComponentType().getPackageName().matches("(.*\\.)?impl(\\..*)?");
    }

    private static boolean exposed(JavaMember m) {
        Set<JavaModifier> mods = m.getModifiers();
        return (mods.contains(JavaModifier.PUBLIC) || mods.contains(JavaModifier.PROTECTED))
                && !mods.contains(JavaModifier.SYNTHETIC) && !mods.contains(JavaModifier.BRIDGE);
    }

    static ArchCondition<JavaClass> exposeNoImplType() {
        return new ArchCondition<>("expose no type from an ..impl.. package") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                List<String> leaks = new ArrayList<>();
                c.getSuperclass().ifPresent(t -> leak(leaks, "extends", t));
                for (JavaType t : c.getInterfaces()) {
                    leak(leaks, "implements", t);
                }
                for (JavaField f : c.getFields()) {
                    if (exposed(f)) {
                        leak(leaks, "field " + f.getName(), f.getType());
                    }
                }
                for (JavaCodeUnit u : c.getCodeUnits()) {
                    if (!exposed(u) || u.getOwner().isEnum() && u.getName().equals("valueOf")) {
                        continue;
                    }
                    String what = (u instanceof JavaMethod ? "method " : "constructor ") + u.getName() + "("
                            + u.getRawParameterTypes().size() + " params)";
                    leak(leaks, what + " returns", u.getReturnType());
                    for (JavaType p : u.getParameterTypes()) {
                        leak(leaks, what + " takes", p);
                    }
                    for (JavaClass t : u.getThrowsClause().getTypes()) {
                        leak(leaks, what + " throws", t);
                    }
                    for (JavaType v : u.getTypeParameters()) {
                        leak(leaks, what + " type parameter", v);
                    }
                }
                for (String l : leaks) {
                    events.add(SimpleConditionEvent.violated(c, c.getName() + ": " + l));
                }
            }
        };
    }

    private static void leak(List<String> leaks, String where, JavaType type) {
        for (JavaClass raw : type.getAllInvolvedRawTypes()) {
            if (isImpl(raw)) {
                leaks.add(where + " " + raw.getName());
            }
        }
    }
}
