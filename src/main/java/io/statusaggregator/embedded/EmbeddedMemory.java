package io.statusaggregator.embedded;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The embedded default's memory. Without {@code -Xmx} the JVM may grow its heap to a quarter of the machine's memory,
 * and G1 keeps what it has grown to: after 25 minutes of the demo the process held 1.46 GB with 231 MB live. A jar
 * cannot set its own heap bound ({@code java -jar} reads no JVM options from it, and the README's command is plain
 * {@code java -jar}), so the embedded default asks G1 to give back what it does not use instead: a concurrent cycle
 * at least every {@link #PERIODIC_GC_MILLIS} ms when none ran, and after one, a heap at most 30 % free. These are
 * flags the JVM lets a running process change ({@code manageable}); one the user set is left as set.
 */
public final class EmbeddedMemory {
    static final long PERIODIC_GC_MILLIS = 10_000;
    /** In this order: the minimum may not be over the maximum at any step. */
    private static final Map<String, String> FLAGS = orderedFlags();

    private EmbeddedMemory() {
    }

    private static Map<String, String> orderedFlags() {
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put("MinHeapFreeRatio", "10");
        flags.put("MaxHeapFreeRatio", "30");
        flags.put("G1PeriodicGCInterval", Long.toString(PERIODIC_GC_MILLIS));
        return flags;
    }

    /** Sets the flags the user did not set; says in one line what the heap may grow to, and how to bound it. */
    public static String keepSmall() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        FLAGS.forEach((name, value) -> {
            try {
                if (vm.getVMOption(name).getOrigin() == VMOption.Origin.DEFAULT) {
                    vm.setVMOption(name, value);
                }
            } catch (IllegalArgumentException e) {
                // A JVM without this flag (another collector, another vendor): it keeps its own sizing.
            }
        });
        return "embedded default: a heap of at most " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB ("
                + (explicitBound(vm) ? "as set" : "the JVM's default; java -Xmx512m -jar ... bounds it")
                + "), what it does not use given back to the system";
    }

    private static boolean explicitBound(HotSpotDiagnosticMXBean vm) {
        VMOption.Origin origin = vm.getVMOption("MaxHeapSize").getOrigin();
        return origin != VMOption.Origin.DEFAULT && origin != VMOption.Origin.ERGONOMIC;
    }
}
