-- Runs once, on the first start with an empty data volume, after the entrypoint has
-- created MYSQL_USER (`bulk`) and MYSQL_DATABASE (bulk_messaging). The app creates its
-- log and notification databases itself if missing, so the app user needs rights on
-- those names too (a grant may name a database that does not exist yet). Names are
-- spelled out, `_` escaped, because wildcard database grants are deprecated in 8.4.
GRANT ALL PRIVILEGES ON `bulk\_messaging`.* TO 'bulk'@'%';
GRANT ALL PRIVILEGES ON `bulk\_messaging\_log`.* TO 'bulk'@'%';
GRANT ALL PRIVILEGES ON `bulk\_messaging\_notification`.* TO 'bulk'@'%';
