"""Character sheets over HTTP: the sheet's page and editor (sheets), the form built from the system's fields
(sheetform), its fields as the page renders them (sheetviews), a posted form read back (sheetreading).
"""
