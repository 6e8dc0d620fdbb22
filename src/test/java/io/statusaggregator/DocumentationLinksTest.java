package io.statusaggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documentation stands on its own: every link in the README, BENCHMARKS.md and {@code docs/} leads to a file of
 * the repository (and, with a {@code #fragment}, to a heading there), and none leads outside it.
 */
class DocumentationLinksTest {
    /** {@code [text](target)} and {@code ![alt](target)}; the target up to a space or the closing parenthesis. */
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");
    private static final Path ROOT = Path.of("").toAbsolutePath();

    @Test
    void everyLinkResolvesInsideTheRepository() throws IOException {
        List<Path> documents = documents();
        assertTrue(documents.size() > 5, "found the documents: " + documents);
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path document : documents) {
            for (String target : links(document)) {
                checked++;
                problem(document, target).ifPresent(p -> broken.add(ROOT.relativize(document) + ": " + target + ": " + p));
            }
        }
        assertTrue(checked > 20, "links found: " + checked);
        assertEquals(List.of(), broken);
    }

    @Test
    void theCheckerFindsABrokenLinkAMissingHeadingAndALinkOutside() throws IOException {
        Path readme = ROOT.resolve("README.md");
        assertTrue(problem(readme, "docs/no-such-page.md").isPresent());
        assertTrue(problem(readme, "docs/layout.md#no-such-heading").isPresent());
        assertTrue(problem(readme, "../shared/spec/status-rules.md").isPresent());
        assertTrue(problem(readme, "https://example.com/").isPresent());
        assertTrue(problem(readme, "docs/layout.md#house-rules").isEmpty());
    }

    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("BENCHMARKS.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        return documents;
    }

    /** A Markdown file's lines outside its fenced code blocks (the fences left out too): where links and headings are. */
    static List<String> prose(Path markdown) throws IOException {
        List<String> prose = new ArrayList<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(markdown)) {
            if (line.strip().startsWith("```")) {
                inCode = !inCode;
            } else if (!inCode) {
                prose.add(line);
            }
        }
        return prose;
    }

    private static List<String> links(Path document) throws IOException {
        List<String> targets = new ArrayList<>();
        for (String line : prose(document)) {
            Matcher links = LINK.matcher(line.replaceAll("`[^`]*`", ""));
            while (links.find()) {
                targets.add(links.group(1));
            }
        }
        return targets;
    }

    /** What is wrong with a link from {@code document}, if anything. */
    private static java.util.Optional<String> problem(Path document, String target) throws IOException {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return java.util.Optional.of("leads outside the repository");
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
        if (!resolved.startsWith(ROOT)) {
            return java.util.Optional.of("leads outside the repository");
        }
        if (!Files.exists(resolved)) {
            return java.util.Optional.of("no such file");
        }
        if (hash >= 0 && resolved.toString().endsWith(".md") && !anchors(resolved).contains(target.substring(hash + 1))) {
            return java.util.Optional.of("no such heading in " + ROOT.relativize(resolved));
        }
        return java.util.Optional.empty();
    }

    /** The anchor GitHub makes of a heading line (before numbering repeats), if the line is a heading. */
    static Optional<String> headingAnchor(String line) {
        Matcher heading = HEADING.matcher(line);
        if (!heading.matches()) {
            return Optional.empty();
        }
        return Optional.of(heading.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
    }

    /** The anchors of a Markdown file's headings, as GitHub makes them: lower case, punctuation dropped, spaces to '-'. */
    static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        for (String line : prose(markdown)) {
            Optional<String> heading = headingAnchor(line);
            if (heading.isPresent()) {
                String slug = heading.get();
                String anchor = slug;
                for (int n = 1; !anchors.add(anchor); n++) {
                    anchor = slug + "-" + n;
                }
            }
        }
        return anchors;
    }
}
