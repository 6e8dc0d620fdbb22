package io.statusaggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The status rules reference and the scenarios that prove it point at each other: every scenario file names its
 * rule in its first line, with a link to a section of {@code docs/status-rules.md}, and that section links back to
 * the file.
 */
class ScenarioReferencesTest {
    private static final Path ROOT = Path.of("").toAbsolutePath();
    private static final Path REFERENCE = ROOT.resolve("docs/status-rules.md");
    private static final Path SCENARIOS = ROOT.resolve("src/test/resources/scenarios");
    /** The first line of a scenario: {@code # Rule: <the rule>; see docs/status-rules.md#<anchor>}. */
    private static final Pattern RULE_LINE = Pattern.compile("^# Rule: (.+); see docs/status-rules\\.md#([a-z0-9_-]+)$");

    @Test
    void everyScenarioNamesItsRuleAndItsSectionLinksBack() throws IOException {
        Map<String, String> sections = sections(REFERENCE);
        List<Path> scenarios;
        try (Stream<Path> walk = Files.walk(SCENARIOS)) {
            scenarios = walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertTrue(scenarios.size() > 50, "scenarios found: " + scenarios.size());
        List<String> problems = new ArrayList<>();
        for (Path scenario : scenarios) {
            String name = ROOT.relativize(scenario).toString();
            String first = Files.readAllLines(scenario).get(0);
            Matcher rule = RULE_LINE.matcher(first);
            if (!rule.matches()) {
                problems.add(name + ": first line is not '# Rule: ...; see docs/status-rules.md#...': " + first);
                continue;
            }
            String section = sections.get(rule.group(2));
            if (section == null) {
                problems.add(name + ": no section #" + rule.group(2) + " in docs/status-rules.md");
            } else if (!section.contains("](../" + name + ")")) {
                problems.add(name + ": section #" + rule.group(2) + " of docs/status-rules.md does not link it");
            }
        }
        assertEquals(List.of(), problems);
    }

    /** Each heading's anchor and the text under it, up to the next heading. */
    private static Map<String, String> sections(Path markdown) throws IOException {
        Map<String, String> sections = new HashMap<>();
        String anchor = "";
        StringBuilder text = new StringBuilder();
        for (String line : DocumentationLinksTest.prose(markdown)) {
            Optional<String> heading = DocumentationLinksTest.headingAnchor(line);
            if (heading.isPresent()) {
                sections.put(anchor, text.toString());
                anchor = heading.get();
                text = new StringBuilder();
            } else {
                text.append(line).append('\n');
            }
        }
        sections.put(anchor, text.toString());
        return sections;
    }
}
