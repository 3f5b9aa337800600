"""Tests of the tool layer: the Toolbox, argument checking, output caps and spill files, and
every profile's names, schemas and texts."""
