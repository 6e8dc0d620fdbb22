package io.statusaggregator.model;

import java.util.List;
import java.util.Optional;

/** The conditions of a CAPI object, looked up by type. */
public record ObservedConditions(List<ObservedCondition> all) {
    public static final ObservedConditions NONE = new ObservedConditions(List.of());

    public ObservedConditions {
        all = List.copyOf(all);
    }

    public Optional<ObservedCondition> get(String type) {
        return all.stream().filter(c -> c.type().equals(type)).findFirst();
    }

    /** True only when the condition is present and explicitly False; absent or Unknown is not False. */
    public boolean isFalse(String type) {
        return get(type).map(ObservedCondition::isFalse).orElse(false);
    }

    public boolean isTrue(String type) {
        return get(type).map(ObservedCondition::isTrue).orElse(false);
    }
}
