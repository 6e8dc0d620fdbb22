package io.statusaggregator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The house rules that keep the code a newcomer can walk into (docs/layout.md): packages in one direction,
 * the status rules and their model pure, no class too long to read. Each fails the build when broken.
 */
class HouseRulesTest {
    private static final String ROOT = "io.statusaggregator";
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // The harness is built with -Pbench only; JMH's generated classes are not the house's. The benchmark in the
            // aggregation package (beside the book it drives) keeps the house's rules.
            .withImportOption(location -> !location.contains("/bench/") && !location.contains("/jmh_generated/"))
            .importPackages(ROOT);

    @Test
    void packagesDependOnEachOtherInOneDirectionOnly() {
        SlicesRuleDefinition.slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                String name = javaClass.getPackageName();
                return name.equals(ROOT) || name.startsWith(ROOT + ".")
                        ? SliceIdentifier.of(name.equals(ROOT) ? "(wiring)" : name.substring(ROOT.length() + 1))
                        : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the application's packages";
            }
        }).should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void theRulesTheVersionsAndTheModelAreFreeOfIoAndFrameworks() {
        // Records in, records out: the JDK's language, collections and time, and each other. JSON and YAML codecs
        // live beside them in model.json and versions.json; Kafka, Kubernetes clients and Quarkus live elsewhere.
        classes().that().resideInAnyPackage(ROOT + ".model", ROOT + ".rules", ROOT + ".versions")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java.lang..", "java.util..", "java.time..",
                        "java.math..", ROOT + ".model", ROOT + ".rules", ROOT + ".versions")
                .because("the status rules are pure functions of their inputs, unit-tested without I/O")
                .check(MAIN);
    }

    /**
     * Files over 500 lines once their lines were wrapped to 120 characters (not packed to stay under), each capped at
     * its present length until it is split by concern (issue [16]): none may grow, and none may be added.
     */
    private static final Map<String, Integer> AWAITING_A_SPLIT = Map.of(
            "src/main/java/io/statusaggregator/aggregation/Aggregator.java", 550,
            "src/main/java/io/statusaggregator/aggregation/ClusterBook.java", 518,
            "src/main/java/io/statusaggregator/embedded/FleetSimulator.java", 517,
            "src/main/java/io/statusaggregator/Pipeline.java", 504,
            "src/main/java/io/statusaggregator/embedded/MergePatchingDispatcher.java", 503);

    @Test
    void noClassIsOver500Lines() throws IOException {
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            List<String> long_ = sources.filter(p -> p.toString().endsWith(".java")).map(p -> Map.entry(p, lines(p)))
                    .filter(file -> file.getValue() > AWAITING_A_SPLIT.getOrDefault(file.getKey().toString(), 500))
                    .map(file -> file.getKey() + ": " + file.getValue() + " lines").toList();
            assertEquals(List.of(), long_, "split these into classes a reader can hold in mind");
        }
    }

    @Test
    void noLineIsOver120Characters() throws IOException {
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            List<String> long_ = sources.filter(p -> p.toString().endsWith(".java")).sorted()
                    .flatMap(HouseRulesTest::linesOver120).toList();
            assertEquals(List.of(), long_, "wrap these lines at a natural point (an argument, a call, a clause)");
        }
    }

    /** {@code file:line: length} of each line of {@code file} over 120 characters. */
    private static Stream<String> linesOver120(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return java.util.stream.IntStream.range(0, lines.size()).filter(i -> lines.get(i).length() > 120)
                    .mapToObj(i -> file + ":" + (i + 1) + ": " + lines.get(i).length() + " characters");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
