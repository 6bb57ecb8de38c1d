-- How much of the warehouse file is blocks DuckDB freed and keeps for reuse (pipeline/load/
-- warehouse.py compact): its blocks in all, the free ones among them, and the size of a block.
SELECT total_blocks, free_blocks, block_size FROM pragma_database_size() WHERE database_name = 'warehouse';
