package dev.baton.discovery;

import java.util.Objects;

/** A payload as applications write them: a bean with a no-argument constructor. */
public class Details {
    private String region;
    private int weight;

    public Details() {
    }

    public Details(String region, int weight) {
        this.region = region;
        this.weight = weight;
    }

    public String getRegion() {
        return region;
    }

    public void setRegion(String region) {
        this.region = region;
    }

    public int getWeight() {
        return weight;
    }

    public void setWeight(int weight) {
        this.weight = weight;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Details d && d.getClass() == getClass() && Objects.equals(region, d.region)
                && weight == d.weight;
    }

    @Override
    public int hashCode() {
        return Objects.hash(region, weight);
    }

    @Override
    public String toString() {
        return "Details[" + region + ", " + weight + "]";
    }
}
