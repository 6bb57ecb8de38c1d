-- The ingested editions of the Comprehensive Rules.
SELECT effective_date, rules, glossary_terms FROM cr_edition ORDER BY effective_date;
