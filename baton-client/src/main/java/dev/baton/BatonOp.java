package dev.baton;

import java.util.Objects;
import org.apache.zookeeper.Op;

/**
 * One operation of a transaction, made with {@link BatonClient#transactionOp()} and run with
 * {@link BatonClient#transaction()}. Immutable.
 */
public final class BatonOp {

    /** The kinds of operation a transaction can hold. */
    public enum Type {
        /** Create a node. */
        CREATE,
        /** Delete a node. */
        DELETE,
        /** Set a node's data. */
        SET_DATA,
        /** Check a node's version. */
        CHECK
    }

    private final Type type;
    private final String path;
    private final Op op;

    BatonOp(Type type, String path, Op op) {
        this.type = Objects.requireNonNull(type, "type");
        this.path = Objects.requireNonNull(path, "path");
        this.op = Objects.requireNonNull(op, "op");
    }

    /** {@return the kind of operation} */
    public Type type() {
        return type;
    }

    /** {@return the path as the user gave it} */
    public String path() {
        return path;
    }

    /** {@return the ZooKeeper operation, with the namespace applied} */
    public Op op() {
        return op;
    }

    @Override
    public String toString() {
        return "BatonOp[" + type + " " + path + "]";
    }
}
