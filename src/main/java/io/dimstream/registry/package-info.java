/** Writer schemas by id from a schema registry's Confluent-compatible API, cached, waiting out outages. */
package io.dimstream.registry;
