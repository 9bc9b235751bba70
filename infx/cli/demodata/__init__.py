"""Data of `infx demo`, shipped with the package: the example PR, its world, and links to our configs."""
