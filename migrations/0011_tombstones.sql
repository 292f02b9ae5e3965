CREATE TABLE `tombstones` (
	`archive_id` text NOT NULL,
	`id_hash` text NOT NULL,
	`deleted_at` integer NOT NULL,
	`audit_id` integer NOT NULL,
	`recreated_at` integer,
	`recreated_by` text,
	PRIMARY KEY(`archive_id`, `id_hash`)
);
