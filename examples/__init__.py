"""Host files for the Akita paper's setups, shipped with the package (``akita.examples``)."""
