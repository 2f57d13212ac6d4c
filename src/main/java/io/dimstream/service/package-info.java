/** One running dimension: lifecycle, health, metrics, the table sink, catching up with its topics. */
package io.dimstream.service;
