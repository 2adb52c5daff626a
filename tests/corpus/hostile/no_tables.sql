-- A file of statements none of which defines state.
SET NAMES utf8mb4;
DROP TABLE IF EXISTS customers;
SELECT 1;
