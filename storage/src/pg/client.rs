//! Connections of the shared store: each keeps the statements it has
//! prepared, so that a query costs one round trip to the server, not two
//! (a statement named by its text is otherwise prepared anew every time).

use std::collections::HashMap;

use postgres::types::ToSql;
use postgres::{NoTls, Row, Statement, Transaction};

type Params<'p> = &'p [&'p (dyn ToSql + Sync)];

/// One connection and its prepared statements, by SQL text.
pub(crate) struct Client {
    inner: postgres::Client,
    statements: HashMap<String, Statement>,
}

/// Runs statements by their text, each prepared once per connection.
pub(crate) trait Db {
    fn query(&mut self, sql: &str, params: Params<'_>) -> Result<Vec<Row>, postgres::Error>;
    fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64, postgres::Error>;

    fn query_opt(&mut self, sql: &str, params: Params<'_>) -> Result<Option<Row>, postgres::Error> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// The one row `sql` gives (an error if none).
    fn query_one(&mut self, sql: &str, params: Params<'_>) -> Result<Row, postgres::Error>;
}

fn prepared<'s>(
    statements: &'s mut HashMap<String, Statement>,
    sql: &str,
    prepare: impl FnOnce(&str) -> Result<Statement, postgres::Error>,
) -> Result<&'s Statement, postgres::Error> {
    if !statements.contains_key(sql) {
        let statement = prepare(sql)?;
        statements.insert(sql.to_owned(), statement);
    }
    Ok(&statements[sql])
}

impl Client {
    /// Starts a transaction.
    pub(crate) fn transaction(&mut self) -> Result<Tx<'_>, postgres::Error> {
        let Client { inner, statements } = self;
        Ok(Tx { t: inner.transaction()?, statements })
    }

    /// The connection itself (for the schema's migrations).
    pub(crate) fn raw(&mut self) -> &mut postgres::Client {
        &mut self.inner
    }
}

impl Db for Client {
    fn query(&mut self, sql: &str, params: Params<'_>) -> Result<Vec<Row>, postgres::Error> {
        let Client { inner, statements } = self;
        let statement = prepared(statements, sql, |s| inner.prepare(s))?;
        inner.query(statement, params)
    }

    fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64, postgres::Error> {
        let Client { inner, statements } = self;
        let statement = prepared(statements, sql, |s| inner.prepare(s))?;
        inner.execute(statement, params)
    }

    fn query_one(&mut self, sql: &str, params: Params<'_>) -> Result<Row, postgres::Error> {
        let Client { inner, statements } = self;
        let statement = prepared(statements, sql, |s| inner.prepare(s))?;
        inner.query_one(statement, params)
    }
}

/// A transaction on a [`Client`], using its prepared statements.
pub(crate) struct Tx<'a> {
    t: Transaction<'a>,
    statements: &'a mut HashMap<String, Statement>,
}

impl Tx<'_> {
    /// Commits.
    pub(crate) fn commit(self) -> Result<(), postgres::Error> {
        self.t.commit()
    }

    /// Runs statements without parameters (no preparing).
    pub(crate) fn batch_execute(&mut self, sql: &str) -> Result<(), postgres::Error> {
        self.t.batch_execute(sql)
    }
}

impl Db for Tx<'_> {
    fn query(&mut self, sql: &str, params: Params<'_>) -> Result<Vec<Row>, postgres::Error> {
        let Tx { t, statements } = self;
        let statement = prepared(statements, sql, |s| t.prepare(s))?;
        t.query(statement, params)
    }

    fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64, postgres::Error> {
        let Tx { t, statements } = self;
        let statement = prepared(statements, sql, |s| t.prepare(s))?;
        t.execute(statement, params)
    }

    fn query_one(&mut self, sql: &str, params: Params<'_>) -> Result<Row, postgres::Error> {
        let Tx { t, statements } = self;
        let statement = prepared(statements, sql, |s| t.prepare(s))?;
        t.query_one(statement, params)
    }
}

/// Makes the pool's connections: connected, in the schema if one is given.
#[derive(Debug)]
pub(crate) struct Manager {
    pub(crate) config: postgres::Config,
    pub(crate) schema: Option<String>,
}

impl r2d2::ManageConnection for Manager {
    type Connection = Client;
    type Error = postgres::Error;

    fn connect(&self) -> Result<Client, postgres::Error> {
        let mut inner = self.config.connect(NoTls)?;
        if let Some(schema) = &self.schema {
            inner.batch_execute(&format!("SET search_path TO {}", super::quote_ident(schema)))?;
        }
        Ok(Client { inner, statements: HashMap::new() })
    }

    fn is_valid(&self, conn: &mut Client) -> Result<(), postgres::Error> {
        conn.inner.simple_query("").map(drop)
    }

    fn has_broken(&self, conn: &mut Client) -> bool {
        conn.inner.is_closed()
    }
}
