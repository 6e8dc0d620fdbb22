package io.statusaggregator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AllowedHostsTest {
    @Test
    void loopbackNamesWithAnyPortAreServedAndNoOtherName() {
        AllowedHosts loopback = AllowedHosts.loopback();
        for (String host : List.of("localhost", "localhost:8080", "LOCALHOST:1", "127.0.0.1", "127.0.0.1:9000",
                "[::1]", "[::1]:8443")) {
            assertTrue(loopback.admits(host), host);
        }
        for (String host : List.of("evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.nip.io",
                "127.0.0.2",
                "0.0.0.0", "[::2]:80", "localhost:", "localhost:x", "localhost:8080:1", "[::1", "[::1]x", "", " ",
                        "localhost@evil")) {
            assertFalse(loopback.admits(host), host);
        }
        assertFalse(loopback.admits(null), "no Host at all");
    }

    @Test
    void aConfiguredListServesItsNamesAndAStarServesAny() {
        AllowedHosts configured = AllowedHosts.of(List.of(" status.example.com ", "10.0.0.7"));
        assertTrue(configured.admits("Status.Example.com:443"));
        assertTrue(configured.admits("10.0.0.7:8080"));
        assertFalse(configured.admits("localhost"));
        assertTrue(AllowedHosts.of(List.of("a", "*")).admits("anything.example"));
        assertTrue(AllowedHosts.any().admits(null));
        assertTrue(AllowedHosts.any().anyHost());
        assertFalse(configured.anyHost());
    }

    @Test
    void theHostIsTheHeaderWithoutItsPort() {
        assertEquals(Optional.of("[::1]"), AllowedHosts.host("[::1]:80"));
        assertEquals(Optional.of("a.b"), AllowedHosts.host("a.b:65535"));
        assertEquals(Optional.empty(), AllowedHosts.host(":80"));
        assertEquals(Optional.empty(), AllowedHosts.host("a:1234567"));
    }
}
