/** One running dimension: lifecycle, health, metrics, the table sink, and the offline pipelines. */
package io.dimstream.service;
