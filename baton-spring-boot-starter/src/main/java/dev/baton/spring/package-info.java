/**
 * Spring Boot auto-configuration for Baton: a started {@link dev.baton.BatonClient} bean from the
 * {@code baton.*} properties, leader-gated work ({@link dev.baton.spring.LeaderOnly},
 * {@link dev.baton.spring.BatonLeadership} and its events), a Spring Integration lock registry
 * ({@link dev.baton.spring.BatonLockRegistry}), the {@code baton} health indicator and Micrometer metrics. Each
 * part is switched on only when the application has what it needs, and backs off for the application's own bean.
 */
@NullMarked
package dev.baton.spring;

import org.jspecify.annotations.NullMarked;
