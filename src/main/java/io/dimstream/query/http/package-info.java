/** The JSON HTTP endpoint of a running service: live key lookups routed to the owning instance, health, Prometheus metrics and the timeline page. */
package io.dimstream.query.http;
