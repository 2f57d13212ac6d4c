package io.dimstream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Holds the package layering of docs/concepts.md ("The code by concept"): each layer depends only on the layers
 * below it.
 */
class ArchitectureTest {
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.dimstream");
  }

  @Test
  void shouldKeepKafkaOutOfTheValueHistoryCodecAndTableLayers() {
    noClasses().that().resideInAnyPackage("io.dimstream.model..", "io.dimstream.history..", "io.dimstream.table..",
            "io.dimstream.config..", "io.dimstream.codec..")
        .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
        .check(main);
  }

  @Test
  void shouldKeepModelFreeOfEveryOtherLayer() {
    noClasses().that().resideInAPackage("io.dimstream.model..")
        .should().dependOnClassesThat().resideInAnyPackage("io.dimstream.history..", "io.dimstream.codec..",
            "io.dimstream.table..", "io.dimstream.change..", "io.dimstream.topology..", "io.dimstream.compactor..",
            "io.dimstream.query..", "io.dimstream.service..", "io.dimstream.broker..", "io.dimstream.cli..",
            "io.dimstream.testkit..")
        .check(main);
  }

  @Test
  void shouldKeepHistoryThePureRuleOverModelAndConfig() {
    noClasses().that().resideInAPackage("io.dimstream.history..")
        .should().dependOnClassesThat().resideInAnyPackage("io.dimstream.codec..", "io.dimstream.table..",
            "io.dimstream.change..", "io.dimstream.topology..", "io.dimstream.compactor..", "io.dimstream.query..",
            "io.dimstream.service..", "io.dimstream.broker..", "io.dimstream.cli..", "io.dimstream.testkit..")
        .check(main);
  }

  @Test
  void shouldKeepTableAndHistoryApart() {
    noClasses().that().resideInAPackage("io.dimstream.table..")
        .should().dependOnClassesThat().resideInAnyPackage("io.dimstream.history..", "io.dimstream.codec..",
            "io.dimstream.change..", "io.dimstream.topology..", "io.dimstream.compactor..", "io.dimstream.query..",
            "io.dimstream.service..", "io.dimstream.cli..")
        .check(main);
  }

  @Test
  void shouldKeepTheCompactorIndependentOfTheTopology() {
    noClasses().that().resideInAPackage("io.dimstream.compactor..")
        .should().dependOnClassesThat().resideInAnyPackage("io.dimstream.topology..", "io.dimstream.service..",
            "io.dimstream.cli..")
        .check(main);
  }

  @Test
  void shouldLetNobodyImportTheCommandLine() {
    noClasses().that().resideOutsideOfPackage("io.dimstream.cli..")
        .should().dependOnClassesThat().resideInAPackage("io.dimstream.cli..")
        .check(main);
  }

  @Test
  void shouldLetOnlyTheCommandLineAndTheTestKitUseTheService() {
    classes().that().resideInAPackage("io.dimstream.service..")
        .should().onlyHaveDependentClassesThat().resideInAnyPackage("io.dimstream.service..", "io.dimstream.cli..")
        .check(main);
  }

  @Test
  void shouldUseInternalPackagesOnlyInsideTheirParent() {
    noClasses().that().resideOutsideOfPackage("io.dimstream.table..")
        .should().dependOnClassesThat().resideInAPackage("io.dimstream.table.internal..")
        .check(main);
  }

  @Test
  void shouldKeepExpressionsBesideHistoryOverModelAndConfig() {
    noClasses().that().resideInAPackage("io.dimstream.expr..")
        .should().dependOnClassesThat().resideInAnyPackage("io.dimstream.codec..", "io.dimstream.table..",
            "io.dimstream.change..", "io.dimstream.topology..", "io.dimstream.compactor..", "io.dimstream.query..",
            "io.dimstream.service..", "io.dimstream.broker..", "io.dimstream.cli..", "io.dimstream.testkit..",
            "org.apache.kafka..")
        .check(main);
  }

  @Test
  void shouldHaveNoCyclesBetweenPackages() {
    slices().matching("io.dimstream.(*)..").should().beFreeOfCycles().check(main);
  }
}
