"""Accounting: what each call costs, budgets that stop spending, the usage ledger, traces."""
