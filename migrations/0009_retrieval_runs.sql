CREATE TABLE `retrieval_runs` (
	`archive_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`as_of` integer NOT NULL,
	`ks` text NOT NULL,
	`queries` integer NOT NULL,
	`aggregate` text NOT NULL,
	`per_query` text NOT NULL,
	`actor` text NOT NULL,
	PRIMARY KEY(`archive_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `retrieval_runs_created` ON `retrieval_runs` (`archive_id`,`created_at`);