package io.statusaggregator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class HttpLabelsTest {
    @Test
    void aMethodOfItsOwnMakingIsOther() {
        assertEquals("GET", HttpLabels.method("GET"));
        assertEquals("PATCH", HttpLabels.method("PATCH"));
        for (String method : List.of("get", "FOO", "GET\u0000", "PROPFIND", "", "X".repeat(1000))) {
            assertEquals(HttpLabels.OTHER_METHOD, HttpLabels.method(method), method);
        }
        assertEquals(HttpLabels.OTHER_METHOD, HttpLabels.method(null));
    }

    @Test
    void aPathThatIsNoRouteIsUnknown() {
        assertEquals("/upgrade-check/{namespace}/{name}", HttpLabels.uri("/upgrade-check/{namespace}/{name}"));
        assertEquals("NOT_FOUND", HttpLabels.uri("NOT_FOUND"));
        for (String uri : List.of("/upgrade-check/default/alpha", "/%00", "/a\u0000b", "/fleet/x.js", "/q/dev", "")) {
            assertEquals(HttpLabels.UNKNOWN_URI, HttpLabels.uri(uri), uri);
        }
    }

    /**
     * A route added without its label would be counted as UNKNOWN: every resource method's path and static file has
     * one.
     */
    @Test
    void everyRouteOfTheApplicationHasItsLabel() throws IOException {
        List<String> missing = new ArrayList<>();
        int routes = 0;
        for (JavaClass resource : new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.statusaggregator")) {
            if (!resource.isAnnotatedWith(Path.class)) {
                continue;
            }
            Class<?> type = resource.reflect();
            String base = type.getAnnotation(Path.class).value();
            for (Method method : type.getDeclaredMethods()) {
                Path path = method.getAnnotation(Path.class);
                if (path == null && !isEndpoint(method)) {
                    continue;
                }
                routes++;
                String template = ("/" + base + "/" + (path == null ? "" : path.value())).replaceAll("/+",
                        "/").replaceAll("(.)/$", "$1");
                if (!HttpLabels.ROUTES.contains(template.equals("/") ? "root" : template)) {
                    missing.add(type.getSimpleName() + "." + method.getName() + ": " + template);
                }
            }
        }
        java.nio.file.Path statics = java.nio.file.Path.of("src/main/resources/META-INF/resources");
        try (Stream<java.nio.file.Path> files = Files.walk(statics)) {
            files.filter(Files::isRegularFile).map(file -> "/" + statics.relativize(file).toString().replace('\\', '/'))
                    .filter(file -> !HttpLabels.ROUTES.contains(file)).forEach(missing::add);
        }
        assertEquals(List.of(), missing);
        assertTrue(routes >= 10, "the resources' routes were found: " + routes);
        assertTrue(HttpLabels.ROUTES.contains("/q/metrics") && HttpLabels.ROUTES.contains("/q/health/ready"));
    }

    private static boolean isEndpoint(Method method) {
        return Stream.of(method.getAnnotations()).anyMatch(a -> a.annotationType()
                .isAnnotationPresent(jakarta.ws.rs.HttpMethod.class));
    }
}
