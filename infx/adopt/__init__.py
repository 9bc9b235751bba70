"""Adoption by another repository: reusable workflows, the starter files `infx init` writes, the App manifest."""
