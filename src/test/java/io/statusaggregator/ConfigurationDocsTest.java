package io.statusaggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;
import java.io.IOException;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Every setting the application reads is in {@code docs/configuration.md}: each key of every {@code @ConfigMapping}
 * interface (found among the application's classes; method names in kebab case unless {@code @WithName} says
 * otherwise, nested interfaces as groups) and of every {@code @ConfigProperty} injection point, in a table row with
 * its environment variable (Quarkus' rule) and, where it has one, its default.
 */
class ConfigurationDocsTest {
    private static final Path DOCUMENT = Path.of("docs/configuration.md");
    /** A table row whose first cell is one key in backticks: {@code | `key` | `ENV` | default | meaning |}. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`([^`]+)`\\s*\\|(.*)$");

    /** A setting as the application reads it. */
    record Setting(String key, Optional<String> defaultValue, String source) {
    }

    @Test
    void everySettingIsDocumentedWithItsEnvironmentVariableAndDefault() throws Exception {
        List<Setting> settings = settings();
        assertTrue(settings.stream().anyMatch(s -> s.key().equals("aggregator.ingest.lease.renew-deadline")),
                "nested groups are read: " + settings);
        Map<String, List<String>> rows = documentedRows();
        List<String> problems = new ArrayList<>();
        for (Setting setting : settings) {
            List<String> cells = rows.get(setting.key());
            if (cells == null || cells.size() < 3) {
                problems.add(setting.key() + " (" + setting.source() + "): no row in " + DOCUMENT);
                continue;
            }
            String environment = "`" + environmentVariable(setting.key()) + "`";
            if (!cells.get(0).equals(environment)) {
                problems.add(setting.key() + ": environment variable column is " + cells.get(0) + ", expected " + environment);
            }
            String documentedDefault = cells.get(1);
            if (setting.defaultValue().isPresent()) {
                if (!documentedDefault.contains("`" + setting.defaultValue().get() + "`")) {
                    problems.add(setting.key() + ": default column is '" + documentedDefault + "', expected `"
                            + setting.defaultValue().get() + "`");
                }
            } else if (documentedDefault.isBlank()) {
                problems.add(setting.key() + ": no default given; say what happens when it is unset");
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void theEnvironmentVariableFollowsQuarkusRule() {
        assertEquals("AGGREGATOR_INGEST_LEASE_RENEW_DEADLINE", environmentVariable("aggregator.ingest.lease.renew-deadline"));
        assertEquals("QUARKUS_LOG_CATEGORY__IO_QUARKUS__LEVEL", environmentVariable("quarkus.log.category.\"io.quarkus\".level"));
        assertEquals("api-port", kebab("apiPort"));
    }

    /** Quarkus' rule: upper case, every character that is not a letter or digit replaced by {@code _}. */
    static String environmentVariable(String key) {
        return key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    /** SmallRye's default naming of a mapping method: {@code apiPort} is {@code api-port}. */
    static String kebab(String methodName) {
        return methodName.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** Every setting of the application's configuration mappings and {@code @ConfigProperty} injection points. */
    static List<Setting> settings() throws IOException, URISyntaxException, ClassNotFoundException {
        List<Setting> settings = new ArrayList<>();
        for (Class<?> type : applicationClasses()) {
            ConfigMapping mapping = type.getAnnotation(ConfigMapping.class);
            if (mapping != null) {
                group(type, mapping.prefix(), settings);
            }
            List<AnnotatedElement> points = new ArrayList<>(List.of(type.getDeclaredFields()));
            for (var constructor : type.getDeclaredConstructors()) {
                points.addAll(List.of(constructor.getParameters()));
            }
            for (Method method : type.getDeclaredMethods()) {
                points.addAll(List.of(method.getParameters()));
            }
            for (AnnotatedElement point : points) {
                ConfigProperty property = point.getAnnotation(ConfigProperty.class);
                if (property != null && !property.name().isEmpty()) {
                    Optional<String> defaultValue = Optional.of(property.defaultValue())
                            .filter(d -> !d.equals(ConfigProperty.UNCONFIGURED_VALUE));
                    settings.add(new Setting(property.name(), defaultValue, type.getSimpleName() + " "
                            + (point instanceof Parameter p ? p.getName() : point.toString())));
                }
            }
        }
        return settings;
    }

    private static void group(Class<?> type, String prefix, List<Setting> settings) {
        for (Method method : type.getMethods()) {
            if (Modifier.isStatic(method.getModifiers()) || method.isDefault() || method.getParameterCount() > 0) {
                continue;
            }
            WithName withName = method.getAnnotation(WithName.class);
            String name = withName != null ? withName.value() : kebab(method.getName());
            String key = method.isAnnotationPresent(WithParentName.class) ? prefix : prefix + "." + name;
            if (isGroup(method.getReturnType())) {
                group(method.getReturnType(), key, settings);
            } else {
                WithDefault withDefault = method.getAnnotation(WithDefault.class);
                settings.add(new Setting(key, Optional.ofNullable(withDefault).map(WithDefault::value),
                        type.getSimpleName() + "." + method.getName()));
            }
        }
    }

    /** A nested configuration group: an interface of the application itself. */
    private static boolean isGroup(Class<?> type) {
        return type.isInterface() && type.getName().startsWith("io.statusaggregator.");
    }

    /** The compiled classes of {@code src/main/java} (where {@link AggregatorConfig} was loaded from). */
    private static List<Class<?>> applicationClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        Path classes = Path.of(AggregatorConfig.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> names;
        try (Stream<Path> walk = Files.walk(classes)) {
            names = walk.filter(p -> p.toString().endsWith(".class"))
                    .map(p -> classes.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", ""))
                    .sorted().toList();
        }
        assertTrue(names.contains(AggregatorConfig.class.getName()), "classes read from " + classes);
        List<Class<?>> types = new ArrayList<>();
        for (String name : names) {
            types.add(Class.forName(name, false, ConfigurationDocsTest.class.getClassLoader()));
        }
        return types;
    }

    /** Each documented key with the cells after it: environment variable, default, meaning. */
    private static Map<String, List<String>> documentedRows() throws IOException {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(DOCUMENT)) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                List<String> cells = new ArrayList<>();
                for (String cell : row.group(2).split("\\|")) {
                    cells.add(cell.strip());
                }
                rows.put(row.group(1), cells);
            }
        }
        return rows;
    }
}
