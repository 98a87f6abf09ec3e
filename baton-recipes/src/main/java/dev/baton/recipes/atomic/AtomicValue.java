package dev.baton.recipes.atomic;

/**
 * The outcome of an operation on a distributed atomic counter.
 *
 * @param succeeded true if the operation took effect (for {@code get}, always true)
 * @param preValue the value the operation found (a missing node or empty data reads as 0)
 * @param postValue the value after the operation: the value written if it succeeded, otherwise the value last
 *        read, which this call left unchanged
 * @param <T> the value type
 */
public record AtomicValue<T>(boolean succeeded, T preValue, T postValue) {
}
