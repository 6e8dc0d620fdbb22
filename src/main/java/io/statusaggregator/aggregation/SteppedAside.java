package io.statusaggregator.aggregation;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;

/**
 * This instance stopped writing the status of the Cluster {@code cluster}: another writer keeps setting the fields it
 * owns ({@link StatusOwnership}). It publishes its own verdict only, from now on.
 *
 * @param writer  the other writer's manager, as the API server names it; empty when it does not
 * @param stored  the status the Cluster showed then, the other writer's
 * @param verdict this instance's verdict then
 */
@Pure
public record SteppedAside(ObjectKey cluster, String writer, ClusterStatus stored, ClusterStatus verdict) {
}
