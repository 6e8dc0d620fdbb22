package io.statusaggregator.embedded;

import io.statusaggregator.embedded.SimulatedCluster.Group;
import io.statusaggregator.embedded.SimulatedCluster.MachineSet;
import io.statusaggregator.embedded.SimulatedCluster.SimMachine;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.json.ObjectDecoder;
import java.util.Map;

/**
 * The specs and statuses of the Cluster API objects at one API version, as Cluster API writes them there: the demo
 * fleet's management cluster is a CAPI v1.13 one ({@code v1beta2}, {@link CapiV1beta2Shapes}) or a CAPI v1.10 one
 * ({@code v1beta1} only, {@link CapiV1beta1Shapes}). Both tell the same lifecycle, so the status rules come to the
 * same verdicts on either. No I/O.
 */
interface CapiShapes {
    CapiApiVersion version();

    Map<String, Object> capiClusterSpec(SimulatedCluster cluster);

    Map<String, Object> kubeadmControlPlaneSpec(SimulatedCluster cluster);

    Map<String, Object> machineDeploymentSpec(SimulatedCluster cluster, Group group);

    Map<String, Object> machineSpec(MachineSet set, String name);

    /** @param observedGeneration the generation the server holds: the controllers have seen the latest spec */
    Map<String, Object> capiClusterStatus(SimulatedCluster cluster, long observedGeneration);

    Map<String, Object> kubeadmControlPlaneStatus(SimulatedCluster cluster, long observedGeneration);

    Map<String, Object> machineDeploymentStatus(MachineSet set, long observedGeneration);

    Map<String, Object> machineStatus(SimMachine machine, MachineSet set);

    static CapiShapes of(CapiApiVersion version, String capiNamespace) {
        return version == CapiApiVersion.V1BETA2 ? new CapiV1beta2Shapes() : new CapiV1beta1Shapes(capiNamespace);
    }

    /** The label selector of a machine set's machines, as {@code status.selector} spells it. */
    static String selector(MachineSet set) {
        return set.controlPlane
                ? ObjectDecoder.CLUSTER_NAME_LABEL + "=" + set.clusterName + "," + FleetSimulator.CONTROL_PLANE_LABEL
                : ObjectDecoder.CLUSTER_NAME_LABEL + "=" + set.clusterName + ","
                        + ObjectDecoder.DEPLOYMENT_NAME_LABEL + "=" + set.objectName;
    }
}
