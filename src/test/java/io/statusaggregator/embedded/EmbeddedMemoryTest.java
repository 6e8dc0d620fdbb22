package io.statusaggregator.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The embedded default asks the JVM to give back the heap it does not use, and says what the heap may grow to. */
class EmbeddedMemoryTest {
    @Test
    void unusedHeapIsGivenBackAndTheBoundIsSaid() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        boolean g1 = vm.getVMOption("UseG1GC").getValue().equals("true");
        String said = EmbeddedMemory.keepSmall();

        assertEquals("30", vm.getVMOption("MaxHeapFreeRatio").getValue());
        assertEquals("10", vm.getVMOption("MinHeapFreeRatio").getValue());
        if (g1) {
            assertEquals(Long.toString(EmbeddedMemory.PERIODIC_GC_MILLIS), vm.getVMOption("G1PeriodicGCInterval").getValue());
        }
        assertTrue(said.startsWith("embedded default: a heap of at most " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB ("),
                said);
        assertTrue(said.endsWith("what it does not use given back to the system"), said);
    }
}
