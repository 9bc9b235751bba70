"""GitHub's rate-limit answers as the tests replay them (the secondary limit's message)."""

SECONDARY = ("You have exceeded a secondary rate limit. Please wait a few minutes before you "
             "try again.")
